//! What one `save()` of a loaded `Doc` builds before the driver sends,
//! and commits once it landed, without a server, for the benches that
//! weigh a save's own CPU. Not public API.

use futures_util::FutureExt;

use crate::model::doc::Doc;
use crate::model::Document;
use crate::plan::request::write::{self, Commit, Send};

/// Does for a loaded `doc` what [`Doc::save`] does before the driver sends
/// its update: the deleted check and `before_save`, the validators, the
/// plan, the shard key rule, the request `plan::request::write::update`
/// builds, and the filter copy the update sends (the update itself is
/// moved). The server's clock is not read (the bench's model stamps
/// with the client's). Sends and commits nothing; returns the number of
/// top-level keys of the update (0 for a save with nothing to write), and
/// panics if the save is refused, `doc` is new, or a hook waits on I/O.
#[doc(hidden)]
pub fn save_build<T: Document>(doc: &mut Doc<T>) -> usize {
    build(doc, false)
}

/// [`save_build`], then what the `Doc` commits when the update landed
/// (the new snapshot, the version, the stamp, the copy of the value): a
/// save's own work without the round trip, for the benches.
#[doc(hidden)]
pub fn save_landed<T: Document>(doc: &mut Doc<T>) -> usize {
    build(doc, true)
}

fn build<T: Document>(doc: &mut Doc<T>, land: bool) -> usize {
    crate::model::save::before_write(doc, None)
        .now_or_never()
        .expect("a hook that waits on nothing")
        .expect("before_save passes");
    assert!(!doc.is_new(), "a loaded document");
    let mut plan = crate::model::save::planned(doc).expect("the save is planned");
    plan.pushes_read = doc.commit_reads_pushes(&plan);
    let id = doc.stored_id().expect("a loaded document");
    let target = doc.target().expect("a loaded document");
    let mut request = write::update::<T>(id.clone(), target, doc.version(), plan, None);
    let keys = match &mut request.send {
        Send::Update { filter, update } => {
            let update = crate::codec::new_document::take(update);
            std::hint::black_box(filter.clone());
            update.len()
        }
        _ => 0,
    };
    if let (true, Commit::Saved { id, plan, inserted }) = (land, request.commit) {
        doc.commit(id, plan, inserted);
    }
    keys
}
