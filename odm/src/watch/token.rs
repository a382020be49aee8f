//! [`ResumeToken`]: where a change stream stopped, tied to the collection
//! it came from.

use std::fmt;

use mongodb::change_stream::event::ResumeToken as DriverToken;
use serde::{Deserialize, Serialize};

/// Where a [`ChangeStream`](super::ChangeStream) stopped: pass it to
/// [`Watch::resume_after`](super::Watch::resume_after) to go on from the
/// next change, in this process or another (it serializes with serde, e.g.
/// into a document of its own).
///
/// The server's token is opaque; odm keeps beside it the namespace
/// (`db.collection`) of the stream that gave it, so a token from another
/// collection is refused before anything is sent
/// ([`WatchErrorKind::ForeignToken`](super::WatchErrorKind::ForeignToken)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumeToken {
    ns: String,
    token: DriverToken,
}

impl ResumeToken {
    pub(crate) fn new(ns: String, token: DriverToken) -> ResumeToken {
        ResumeToken { ns, token }
    }

    /// The namespace (`db.collection`) of the stream it came from.
    pub fn namespace(&self) -> &str {
        &self.ns
    }

    /// The server's token, for the driver's own `watch`.
    pub fn as_driver(&self) -> &DriverToken {
        &self.token
    }

    /// `Ok` when this token resumes a stream on `ns`; else the namespace it
    /// came from. Pure.
    pub(crate) fn check(&self, ns: &str) -> Result<&DriverToken, &str> {
        if self.ns == ns {
            Ok(&self.token)
        } else {
            Err(&self.ns)
        }
    }
}

impl fmt::Display for ResumeToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match crate::bson_release::to_bson(&self.token) {
            Ok(token) => write!(f, "{} {}", self.ns, token),
            Err(_) => write!(f, "{} {:?}", self.ns, self.token),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bson_release::{from_bson, to_bson};
    use mongodb::bson::{doc, Bson};

    fn token(ns: &str) -> ResumeToken {
        let driver: DriverToken = from_bson(Bson::Document(doc! { "_data": "8264AB" })).unwrap();
        ResumeToken::new(ns.into(), driver)
    }

    #[test]
    fn a_token_resumes_only_its_own_namespace() {
        let t = token("app.users");
        assert!(t.check("app.users").is_ok());
        assert_eq!(t.check("app.tenant_42_users"), Err("app.users"));
        assert_eq!(t.check("other.users"), Err("app.users"));
    }

    #[test]
    fn a_token_round_trips_through_bson() {
        let t = token("app.users");
        let stored = to_bson(&t).unwrap();
        assert_eq!(
            stored,
            Bson::Document(doc! { "ns": "app.users", "token": { "_data": "8264AB" } })
        );
        let back: ResumeToken = from_bson(stored).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.namespace(), "app.users");
    }
}
