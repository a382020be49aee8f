//! The stored document beside the value's snapshot: what it lacks, and
//! its own form where that differs (see `plan::tracked::Tracked`).

use mongodb::bson::raw::RawDocumentBuf;

use crate::codec::{version_key, Hidden};
use crate::error::Error;
use crate::plan::diff::{self, Missing};

/// What `stored` (the document as read) holds beside `snapshot` (the
/// value serialized): the paths it lacks, and its form where that differs
/// from `snapshot` ([`base_of`]). Usually the value serializes as stored:
/// one walk of both says so, and then nothing is missing and nothing is
/// copied.
pub(super) fn stored_form(
    stored: &RawDocumentBuf,
    keys: Hidden,
    snapshot: &RawDocumentBuf,
) -> Result<(Missing, Option<RawDocumentBuf>), Error> {
    if version_key::hides_to(stored, keys, snapshot) {
        return Ok((Missing::new(), None));
    }
    let missing = diff::missing_paths(stored, snapshot)?;
    Ok((missing, base_of(stored, keys, snapshot)))
}

/// The stored document as the rewrite guard compares with it: `stored`
/// without odm's keys (the version and schema version keys, the fence),
/// or `None` when that is exactly `snapshot` (the common case, which
/// costs no copy).
pub(super) fn base_of(
    stored: &RawDocumentBuf,
    keys: Hidden,
    snapshot: &RawDocumentBuf,
) -> Option<RawDocumentBuf> {
    let seen = crate::codec::version_key::hidden(stored, keys);
    (seen.as_bytes() != snapshot.as_bytes()).then(|| seen.into_owned())
}
