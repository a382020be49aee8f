//! The driver's read options on [`Find`], [`FindOne`] and [`Count`], by
//! the driver's names: `hint`, `collation`, `max_time`, `comment`,
//! `read_concern`, `selection_criteria`, and `with_options` for the rest.
//! See the crate guide, [Read options](crate#read-options).

use mongodb::options::{CountOptions, FindOneOptions, FindOptions};

use crate::model::query::{Count, Find, FindOne};
use crate::model::Document;

/// The read setters of one builder: `read_options!(['a, T: Document]
/// Find<'a, T>, FindOptions, "this query")`. The builder holds its
/// driver options in a field `options`.
macro_rules! read_options {
    ([$($generics:tt)*] $builder:ty, $options:ty, $what:literal) => {
        impl<$($generics)*> $builder {
            #[doc = concat!("The index the server must use for ", $what, ": `Hint::Name(\"email_1\".into())` or")]
            /// `Hint::Keys(doc! { "email": 1 })`. A hint naming no index is
            /// refused by the server (an [`Error::Driver`](crate::Error::Driver)).
            pub fn hint(mut self, hint: ::mongodb::options::Hint) -> Self {
                self.options.hint = Some(hint);
                self
            }

            /// How strings compare (locale, case and accent sensitivity), e.g.
            /// `Collation::builder().locale("en").strength(CollationStrength::Secondary).build()`
            /// for a case-insensitive match.
            pub fn collation(mut self, collation: ::mongodb::options::Collation) -> Self {
                self.options.collation = Some(collation);
                self
            }

            /// The longest the server may work on it (`maxTimeMS`); past it the
            /// server gives up with error 50 (`MaxTimeMSExpired`).
            pub fn max_time(mut self, max_time: ::std::time::Duration) -> Self {
                self.options.max_time = Some(max_time);
                self
            }

            /// A comment the server shows in its logs, profiler and `currentOp`.
            pub fn comment(mut self, comment: impl Into<::mongodb::bson::Bson>) -> Self {
                self.options.comment = Some(comment.into());
                self
            }

            /// The read concern, instead of the model's (see
            /// [`Model::with_options`](crate::Model::with_options)). Inside a
            /// transaction the transaction's applies.
            pub fn read_concern(mut self, read_concern: ::mongodb::options::ReadConcern) -> Self {
                self.options.read_concern = Some(read_concern);
                self
            }

            /// Which server to read from (a read preference), instead of the
            /// model's.
            pub fn selection_criteria(mut self, criteria: ::mongodb::options::SelectionCriteria) -> Self {
                self.options.selection_criteria = Some(criteria);
                self
            }

            #[doc = concat!("The driver's options for ", $what, ", replacing every option set so far")]
            /// (set the others after it): the escape hatch for options odm has
            /// no method for.
            pub fn with_options(mut self, options: $options) -> Self {
                self.options = options;
                self
            }
        }
    };
}

pub(crate) use read_options;

read_options!(['a, T: Document] Find<'a, T>, FindOptions, "this query");
read_options!(['a, T: Document] FindOne<'a, T>, FindOneOptions, "this query");
read_options!(['a, T: Document] Count<'a, T>, CountOptions, "this count");
