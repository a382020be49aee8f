//! The top-level keys of a stored document that are odm's, not the
//! value's: the version key (`__v`), the schema version key (`__sv`), the
//! fence (`__fence`) and the reference counter (`__refs`). The value's deserializer never sees them, so a
//! model with `#[serde(deny_unknown_fields)]` or a `#[serde(flatten)]`
//! catch-all map loads as if they were not there, and a save never diffs
//! them as fields.

use crate::codec::text::same;
use crate::codec::version_key::is_odm_key;

/// Which top-level keys a model's stored documents hold beside the value
/// (the fence and the reference counter always are).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// The version key; `None` with `versioning = false`.
    pub version: Option<&'static str>,
    /// The schema version key; `None` without `schema_version`.
    pub schema: Option<&'static str>,
    /// An enum model's kind, hidden from the variant's type only (as
    /// serde's internally tagged decoding shows the variant the document
    /// without its tag); `None` everywhere else.
    pub kind: Option<&'static str>,
}

impl Hidden {
    /// Only the fence (and no version key, no schema version).
    pub(crate) const NONE: Hidden = Hidden {
        version: None,
        schema: None,
        kind: None,
    };

    /// The version key `key` (and the fence).
    pub(crate) const fn version(key: Option<&'static str>) -> Hidden {
        Hidden {
            version: key,
            schema: None,
            kind: None,
        }
    }

    /// Whether the top-level `key` is odm's.
    #[inline]
    pub(crate) fn hides(self, key: &[u8]) -> bool {
        is_odm_key(key)
            || self.version.is_some_and(|k| same(k.as_bytes(), key))
            || self.schema.is_some_and(|k| same(k.as_bytes(), key))
            || self.kind.is_some_and(|k| same(k.as_bytes(), key))
    }
}

impl From<Option<&'static str>> for Hidden {
    fn from(key: Option<&'static str>) -> Hidden {
        Hidden::version(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hides_the_fence_and_the_named_keys_only() {
        let keys = Hidden {
            version: Some("__v"),
            schema: Some("__sv"),
            kind: None,
        };
        for key in ["__v", "__sv", "__fence", "__refs"] {
            assert!(keys.hides(key.as_bytes()), "{key}");
        }
        for key in ["_id", "__v2", "__s", "sv", ""] {
            assert!(!keys.hides(key.as_bytes()), "{key}");
        }
        assert!(Hidden::NONE.hides(b"__fence"));
        assert!(!Hidden::NONE.hides(b"__v"));
        assert!(!Hidden::version(Some("rev")).hides(b"__sv"));
    }
}
