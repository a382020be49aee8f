//! The value a save writes, serialized: whole, or as a patch of the
//! snapshot (the top-level fields that changed, each in place of its
//! snapshot element), which a save of a few fields of a large document
//! builds without writing or copying the rest (see `codec::rawser::patch`).

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use mongodb::bson::raw::{RawDocument, RawDocumentBuf};

use crate::codec::offsets::Offsets;
use crate::codec::rawser::patch::Patch;

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) enum Current {
    /// The whole document, and where its elements start when the
    /// serializer noted them as it wrote (`codec::offsets`; forgotten
    /// when the document is changed in place, see
    /// [`make_whole`](Current::make_whole)).
    Whole(RawDocumentBuf, Offsets),
    /// The snapshot the plan was made from, with these fields replaced.
    Patch(Patch),
}

impl Current {
    /// The whole document of a new document's plan, which is never a
    /// patch (a patch is made from a snapshot).
    pub fn of_new(&self) -> &RawDocumentBuf {
        match self {
            Current::Whole(doc, _) => doc,
            Current::Patch(_) => unreachable!("a new document's plan is whole"),
        }
    }

    /// The whole document; `snapshot` is the one the plan was made from
    /// (a patch is applied to a copy of it).
    pub fn whole<'a>(&'a self, snapshot: Option<&RawDocument>) -> Cow<'a, RawDocument> {
        match (self, snapshot) {
            (Current::Whole(doc, _), _) => Cow::Borrowed(doc),
            (Current::Patch(patch), Some(snapshot)) => {
                Cow::Owned(document(patch.applied(snapshot.as_bytes())))
            }
            (Current::Patch(_), None) => unreachable!("a patch is made from a snapshot"),
        }
    }

    /// The whole document, a patch applied to a copy of `snapshot` (the
    /// one the plan was made from), to change it in place: its offsets
    /// are forgotten.
    pub fn make_whole(&mut self, snapshot: Option<&RawDocument>) -> &mut RawDocumentBuf {
        if let Current::Patch(_) = self {
            *self = Current::Whole(self.whole(snapshot).into_owned(), Offsets::new());
        }
        match self {
            Current::Whole(doc, offsets) => {
                *offsets = Offsets::new();
                doc
            }
            Current::Patch(_) => unreachable!("made whole above"),
        }
    }

    /// The offsets of the document this is, as the snapshot's `offsets`
    /// (those of the document the plan was made from) give them: moved by
    /// a patch's pieces, or those noted of a whole document, taken out.
    pub fn take_offsets(&mut self, offsets: Offsets) -> Offsets {
        match self {
            Current::Patch(patch) => offsets.moved(patch.moves()),
            Current::Whole(_, noted) => std::mem::take(noted),
        }
    }

    /// The whole document, made by patching `snapshot` (the one the plan
    /// was made from) in place.
    pub fn into_whole(self, snapshot: RawDocumentBuf) -> RawDocumentBuf {
        match self {
            Current::Whole(doc, _) => doc,
            Current::Patch(patch) => document(patch.apply(snapshot.into_bytes())),
        }
    }

    /// [`into_whole`](Current::into_whole), keeping `snapshot` too (a
    /// patch is applied to a copy of it).
    pub fn into_whole_keeping(self, snapshot: RawDocumentBuf) -> (RawDocumentBuf, RawDocumentBuf) {
        match self {
            Current::Whole(doc, _) => (doc, snapshot),
            Current::Patch(patch) => (document(patch.applied(snapshot.as_bytes())), snapshot),
        }
    }
}

/// The bytes of a patched document, a document: the patch replaces whole
/// elements and sets the length.
fn document(bytes: Vec<u8>) -> RawDocumentBuf {
    RawDocumentBuf::from_bytes(bytes).expect("a patched document is a document")
}

/// Plans made as a patch since [`patched_plans`] was first called.
static PATCHES: AtomicUsize = AtomicUsize::new(0);

/// Whether plans made as a patch are counted: only once the suite asked,
/// so a save in a service does not write one shared counter.
static COUNTING: AtomicBool = AtomicBool::new(false);

/// Counts a plan made as a patch, when counting.
pub(crate) fn count_patch() {
    if COUNTING.load(Ordering::Relaxed) {
        PATCHES.fetch_add(1, Ordering::Relaxed);
    }
}

/// How many plans (saves, `changes()`, `modified_paths()`) the process has
/// made as a patch of the snapshot rather than of the whole value since
/// this was first called (the first call starts the count): for the
/// suite, to see that its random histories go through that path. Not
/// public API.
#[doc(hidden)]
pub fn patched_plans() -> usize {
    COUNTING.store(true, Ordering::Relaxed);
    PATCHES.load(Ordering::Relaxed)
}
