//! [`PageError`]: a page that cannot be read as asked. Its text names the
//! collection and, where one is at fault, the sort key, never a value.

use std::fmt;

/// Why a [`Paginate`](crate::Paginate) read was refused (nothing was
/// sent, except for [`PageErrorKind::ArrayKey`], found in a result).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PageError {
    /// The namespace (`db.collection`) paged.
    pub namespace: String,
    /// What was wrong.
    pub kind: PageErrorKind,
}

impl PageError {
    pub(crate) fn new(namespace: String, kind: PageErrorKind) -> PageError {
        PageError { namespace, kind }
    }

    /// The namespace (`db.collection`) paged.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// What was wrong.
    pub fn kind(&self) -> &PageErrorKind {
        &self.kind
    }
}

/// What was wrong with a [`Paginate`](crate::Paginate) read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PageErrorKind {
    /// The continuation token is not one odm issued: mistyped, cut short
    /// or made up.
    MalformedToken,
    /// The continuation token was issued for another query: another
    /// collection, filter or sort. A token continues only the query that
    /// gave it.
    ForeignToken,
    /// A sort value is not `1` or `-1` (e.g. a `$meta` sort): such an
    /// order has no key to continue from.
    Sort {
        /// The sort key.
        path: String,
    },
    /// A document holds an array at a sort key, whose place in the order
    /// (its smallest or largest element) no filter can continue from.
    ArrayKey {
        /// The sort key.
        path: String,
    },
    /// `skip` / `limit` were set on the query, or the page size is 0: the
    /// page size and the token say where a page starts and ends.
    Options {
        /// Which option.
        message: String,
    },
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = &self.namespace;
        match &self.kind {
            PageErrorKind::MalformedToken => write!(
                f,
                "cannot continue paging \"{ns}\": the continuation token is not one odm issued \
                 (mistyped, cut short or made up)"
            ),
            PageErrorKind::ForeignToken => write!(
                f,
                "cannot continue paging \"{ns}\": the continuation token was issued for another \
                 query (another collection, filter or sort); a token continues only its own query"
            ),
            PageErrorKind::Sort { path } => write!(
                f,
                "cannot page \"{ns}\" by its sort: the sort on \"{path}\" is not 1 or -1"
            ),
            PageErrorKind::ArrayKey { path } => write!(
                f,
                "cannot page \"{ns}\" by its sort: a document holds an array at the sort key \
                 \"{path}\"; page on a field with one value per document"
            ),
            PageErrorKind::Options { message } => write!(f, "cannot page \"{ns}\": {message}"),
        }
    }
}

impl std::error::Error for PageError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_name_the_collection_and_key() {
        let e = |kind| PageError::new("app.users".into(), kind).to_string();
        assert_eq!(
            e(PageErrorKind::ForeignToken),
            "cannot continue paging \"app.users\": the continuation token was issued for \
             another query (another collection, filter or sort); a token continues only its \
             own query"
        );
        assert_eq!(
            e(PageErrorKind::ArrayKey {
                path: "tags".into()
            }),
            "cannot page \"app.users\" by its sort: a document holds an array at the sort key \
             \"tags\"; page on a field with one value per document"
        );
    }
}
