//! The driver's aggregate options on [`Aggregate`], by the driver's names.

use std::time::Duration;

use mongodb::bson::{Bson, Document as BsonDocument};
use mongodb::options::{AggregateOptions, Collation, Hint, ReadConcern, SelectionCriteria};

use super::Aggregate;
use crate::model::Document;

impl<'a, T: Document, R> Aggregate<'a, T, R> {
    /// Lets stages that need more memory than the server allows them
    /// (`$sort`, `$group`) write temporary files (`allowDiskUse`).
    pub fn allow_disk_use(mut self, allow: bool) -> Self {
        self.options.allow_disk_use = Some(allow);
        self
    }

    /// How many results the server sends per batch; a
    /// [`stream`](Aggregate::stream) holds about one batch at a time.
    pub fn batch_size(mut self, results: u32) -> Self {
        self.options.batch_size = Some(results);
        self
    }

    /// The longest the server may work on it (`maxTimeMS`); past it the
    /// server gives up with error 50 (`MaxTimeMSExpired`).
    pub fn max_time(mut self, max_time: Duration) -> Self {
        self.options.max_time = Some(max_time);
        self
    }

    /// A comment the server shows in its logs, profiler and `currentOp`.
    pub fn comment(mut self, comment: impl Into<Bson>) -> Self {
        self.options.comment = Some(comment.into());
        self
    }

    /// The index the first `$match` / `$sort` must use:
    /// `Hint::Name("email_1".into())` or `Hint::Keys(doc! { "email": 1 })`.
    pub fn hint(mut self, hint: Hint) -> Self {
        self.options.hint = Some(hint);
        self
    }

    /// How strings compare (locale, case and accent sensitivity).
    pub fn collation(mut self, collation: Collation) -> Self {
        self.options.collation = Some(collation);
        self
    }

    /// Variables the pipeline reads as `$$name` (`let`).
    pub fn let_vars(mut self, vars: BsonDocument) -> Self {
        self.options.let_vars = Some(vars);
        self
    }

    /// The read concern, instead of the model's.
    pub fn read_concern(mut self, read_concern: ReadConcern) -> Self {
        self.options.read_concern = Some(read_concern);
        self
    }

    /// Which server to read from (a read preference), instead of the
    /// model's.
    pub fn selection_criteria(mut self, criteria: SelectionCriteria) -> Self {
        self.options.selection_criteria = Some(criteria);
        self
    }

    /// The driver's options, replacing every option set so far (set the
    /// others after it): the escape hatch for options odm has no method
    /// for.
    pub fn with_options(mut self, options: AggregateOptions) -> Self {
        self.options = options;
        self
    }
}
