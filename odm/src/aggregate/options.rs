//! The driver's aggregate options on [`Aggregate`], by the driver's names:
//! the read options every read has (`hint`, `collation`, `max_time`,
//! `comment`, `read_concern`, `selection_criteria`, `with_options`) and the
//! pipeline's own.

use mongodb::bson::Document as BsonDocument;
use mongodb::options::AggregateOptions;

use super::Aggregate;
use crate::model::read_options::read_options;
use crate::model::Document;

read_options!(['a, T: Document, R] Aggregate<'a, T, R>, AggregateOptions, "this pipeline");

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

    /// Variables the pipeline reads as `$$name` (`let`).
    pub fn let_vars(mut self, vars: BsonDocument) -> Self {
        self.options.let_vars = Some(vars);
        self
    }
}
