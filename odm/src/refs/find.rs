//! [`Model::find_refs`]: the targets of many references, loaded without
//! one read per reference.

use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};
use indexmap::IndexMap;
use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{doc, Bson};
use mongodb::options::FindOptions;
use mongodb::ClientSession;

use super::linked::Linked;
use super::reference::Ref;
use crate::error::{from_driver, Result};
use crate::model::doc::Doc;
use crate::model::query::Find;
use crate::model::read_options::read_options;
use crate::model::Model;
use crate::wire::session::awaitable;

/// The most ids one `find` names.
const MAX_IDS: usize = 50_000;

/// The most bytes of ids one `find` names: well inside the 16 MiB a
/// command may take (MongoDB's `maxBsonObjectSize` on every release).
const MAX_ID_BYTES: usize = 8 * 1024 * 1024;

impl<T: Linked> Model<T> {
    /// The documents `refs` point at, each read once: the refs are
    /// de-duplicated and their targets read with one `find` of
    /// `{_id: {$in: [..]}}` (one per chunk of 50,000 ids or 8 MiB of ids),
    /// through the same load as [`find`](Model::find) (tracked `Doc`s, the
    /// command log, the session and read options given). An empty set of
    /// refs sends nothing. [`lean`](FindRefs::lean) gives plain values.
    ///
    /// ```no_run
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct User { #[serde(rename = "_id")] id: ObjectId, name: String }
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # struct Post { #[serde(rename = "_id")] id: ObjectId, author: Ref<User> }
    /// # async fn run(users: Model<User>, posts: Model<Post>) -> odm::Result<()> {
    /// let page = posts.find(doc! {}).limit(500).await?;
    /// let authors = users.find_refs(page.iter().map(|p| &p.author)).await?;
    /// for post in &page {
    ///     match authors.get(&post.author) {
    ///         Some(author) => println!("{} by {}", post.id, author.name),
    ///         None => println!("{} by a deleted user", post.id),
    ///     }
    /// }
    /// let gone: Vec<&Ref<User>> = authors.missing().collect();
    /// # let _ = gone; Ok(()) }
    /// ```
    pub fn find_refs<'r>(&self, refs: impl IntoIterator<Item = &'r Ref<T>>) -> FindRefs<'_, T> {
        // Each ref hashed once; only the first of equal refs is cloned.
        let mut wanted = Wanted::new();
        for r in refs {
            if let RawEntryMut::Vacant(slot) = wanted.raw_entry_mut_v1().from_key(r) {
                slot.insert(r.clone(), ());
            }
        }
        FindRefs {
            model: self,
            refs: wanted,
            options: FindOptions::default(),
            session: None,
        }
    }
}

/// A pending [`Model::find_refs`]; optionally read options,
/// [`lean`](FindRefs::lean) and [`session`](FindRefs::session), then
/// `.await` it.
#[must_use = "nothing is read until it is awaited"]
pub struct FindRefs<'a, T: Linked> {
    model: &'a Model<T>,
    /// The refs, de-duplicated, in the order first given.
    refs: Wanted<T>,
    /// The driver's options (`read_options!` sets them).
    pub(crate) options: FindOptions,
    session: Option<&'a mut ClientSession>,
}

read_options!(['a, T: Linked] FindRefs<'a, T>, FindOptions, "these reads");

impl<'a, T: Linked> FindRefs<'a, T> {
    /// The targets as plain `T` values, not tracked.
    pub fn lean(self) -> LeanRefs<'a, T> {
        LeanRefs(self)
    }

    /// Reads every chunk with one `find` (sent and logged as
    /// [`Model::find`] sends it), loads each document with `load` (the
    /// tracked or the lean load of `find`) and files it under its ref.
    async fn run<D>(self, load: Load<T, D>) -> Result<Refs<T, D>> {
        let FindRefs {
            model,
            refs,
            mut options,
            mut session,
        } = self;
        let mut refs = Refs::new(refs);
        let chunks = chunks(refs.refs.keys(), MAX_IDS, MAX_ID_BYTES);
        let last = chunks.len().saturating_sub(1);
        for (n, chunk) in chunks.into_iter().enumerate() {
            let mut options = match n == last {
                true => std::mem::take(&mut options),
                false => options.clone(),
            };
            // One batch holds every target: with one slot more than
            // there are ids, the server closes the cursor with it (no
            // `getMore`).
            let all = (chunk.len() + 1).min(u32::MAX as usize) as u32;
            options.batch_size.get_or_insert(all);
            let find = Find {
                model,
                filter: doc! { "_id": { "$in": chunk } },
                options,
                session: session.as_deref_mut(),
            };
            // The documents as the cursor gives them, each loaded and
            // filed at once (no stream or list between); the first error
            // ends the read, as it ends a `find`.
            let mut source = find.open().await?;
            while let Some(raw) = source.next().await {
                let raw = raw.map_err(|e| from_driver(e, model.name()))?;
                let (id, value) = load(model, raw)?;
                refs.file(&id, value);
            }
        }
        Ok(refs)
    }
}

/// The refs asked for, de-duplicated, in the order first given.
type Wanted<T> = IndexMap<Ref<T>, ()>;

/// How a read loads one stored document (the tracked or the lean load of
/// `find`), with the ref it answers.
type Load<T, D> = fn(&Model<T>, RawDocumentBuf) -> Result<(Ref<T>, D)>;

awaitable! {
    impl['a, T: Linked] FindRefs<'a, T> => Result<Refs<T>>;
    /// Reads inside `session` (and its transaction, if one is open).
    session;
    into_future(self) self.run(|model, raw| {
        // The tracked load of `find`.
        let doc = model.track(raw)?;
        let id = match doc.stored_id() {
            Some(id) => Ref::from_bson(id.clone()),
            None => Ref::from(&doc),
        };
        Ok((id, doc))
    })
}

/// A pending [`FindRefs::lean`].
#[must_use = "nothing is read until it is awaited"]
pub struct LeanRefs<'a, T: Linked>(FindRefs<'a, T>);

impl<'a, T: Linked> LeanRefs<'a, T> {
    /// Reads inside `session` (and its transaction, if one is open).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.0.session = Some(session);
        self
    }
}

awaitable! {
    impl['a, T: Linked] LeanRefs<'a, T> => Result<Refs<T, T>>;
    into_future(self) self.0.run(|model, raw| {
        // The lean load of `find` (odm's keys hidden, an older schema
        // version upgraded); `find_refs` sets no projection.
        let value: T = crate::typed::lean_decode::<T, T>(&raw, model.name(), None)?;
        Ok((Ref::from(&value), value))
    })
}

/// The documents a [`Model::find_refs`] found, by ref: `Doc<T>`s
/// (tracked), or plain `T`s after [`lean`](FindRefs::lean).
pub struct Refs<T, D = Doc<T>> {
    /// The refs asked for, de-duplicated, in the order first given: the
    /// index of each is its slot in `found`.
    refs: Wanted<T>,
    /// What was found for each ref.
    found: Vec<Option<D>>,
}

impl<T, D> Refs<T, D> {
    fn new(refs: Wanted<T>) -> Self {
        let found = std::iter::repeat_with(|| None).take(refs.len()).collect();
        Refs { refs, found }
    }

    /// Files `value` under the ref `id` (a target of no ref is dropped).
    fn file(&mut self, id: &Ref<T>, value: D) {
        if let Some(i) = self.refs.get_index_of(id) {
            self.found[i] = Some(value);
        }
    }

    /// The target of `r`; `None` when it was not asked for or is gone.
    pub fn get(&self, r: &Ref<T>) -> Option<&D> {
        self.found[self.refs.get_index_of(r)?].as_ref()
    }

    /// The target of `r`, to change (and save).
    pub fn get_mut(&mut self, r: &Ref<T>) -> Option<&mut D> {
        let i = self.refs.get_index_of(r)?;
        self.found[i].as_mut()
    }

    /// Each ref whose target was not found (deleted, or never there),
    /// once, in the order first given.
    pub fn missing(&self) -> impl Iterator<Item = &Ref<T>> + '_ {
        self.refs
            .keys()
            .zip(&self.found)
            .filter(|(_, found)| found.is_none())
            .map(|(r, _)| r)
    }

    /// How many targets were found.
    pub fn len(&self) -> usize {
        self.found.iter().flatten().count()
    }

    /// Whether no target was found.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each ref with its target, in the order first given.
    pub fn iter(&self) -> impl Iterator<Item = (&Ref<T>, &D)> + '_ {
        self.refs
            .keys()
            .zip(&self.found)
            .filter_map(|(r, found)| Some((r, found.as_ref()?)))
    }

    /// The targets found, in the order their refs were first given.
    pub fn into_docs(self) -> Vec<D> {
        self.found.into_iter().flatten().collect()
    }
}

impl<T, D: std::fmt::Debug> std::fmt::Debug for Refs<T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.refs.keys().zip(&self.found))
            .finish()
    }
}

/// The ids of `refs` in chunks, each one `find`: at most `max_ids` ids
/// and `max_bytes` of them (a chunk holds one id at least).
fn chunks<'r, T: 'r>(
    refs: impl IntoIterator<Item = &'r Ref<T>>,
    max_ids: usize,
    max_bytes: usize,
) -> Vec<Vec<Bson>> {
    let mut chunks = Vec::new();
    let mut chunk: Vec<Bson> = Vec::new();
    let mut bytes = 0;
    for r in refs {
        let size = size_of(r.id());
        if !chunk.is_empty() && (chunk.len() == max_ids || bytes + size > max_bytes) {
            chunks.push(std::mem::take(&mut chunk));
            bytes = 0;
        }
        bytes += size;
        chunk.push(r.id().clone());
    }
    if !chunk.is_empty() {
        chunks.push(chunk);
    }
    chunks
}

/// About how many bytes `id` takes in a `$in` list.
fn size_of(id: &Bson) -> usize {
    8 + match id {
        Bson::ObjectId(_) => 12,
        Bson::String(s) => s.len() + 5,
        Bson::Int32(_) => 4,
        Bson::Int64(_) | Bson::Double(_) | Bson::DateTime(_) => 8,
        other => super::reference::bytes_of(other).len(),
    }
}

#[cfg(test)]
mod tests {
    use mongodb::bson::oid::ObjectId;

    use super::*;

    struct Any;

    #[test]
    fn refs_file_their_targets_and_tell_the_missing_ones() {
        let (a, b, c) = (ObjectId::new(), ObjectId::new(), ObjectId::new());
        let r = |id| Ref::<Any>::from_bson(Bson::ObjectId(id));
        let wanted = [r(a), r(b), r(c)].into_iter().map(|r| (r, ())).collect();
        let mut refs: Refs<Any, &str> = Refs::new(wanted);
        refs.file(&r(c), "c");
        refs.file(&r(a), "a");
        refs.file(&r(ObjectId::new()), "stray");
        assert_eq!(refs.len(), 2);
        assert_eq!(refs.get(&r(a)), Some(&"a"));
        assert_eq!(refs.get(&r(b)), None);
        assert_eq!(refs.missing().collect::<Vec<_>>(), [&r(b)]);
        assert_eq!(refs.iter().map(|(_, v)| *v).collect::<Vec<_>>(), ["a", "c"]);
        assert_eq!(refs.into_docs(), ["a", "c"]);
    }

    #[test]
    fn ids_are_chunked_by_count_and_by_bytes() {
        let refs: Vec<Ref<Any>> = (0..7).map(|n| Ref::from_bson(Bson::Int64(n))).collect();
        let sizes = |c: Vec<Vec<Bson>>| c.iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(sizes(chunks(&refs, 3, usize::MAX)), [3, 3, 1]);
        // 16 bytes an Int64 id: two fit in 40 bytes.
        assert_eq!(sizes(chunks(&refs, 100, 40)), [2, 2, 2, 1]);
        // One id larger than the budget still goes, alone.
        let long = vec![Ref::<Any>::from_bson(Bson::String("x".repeat(100)))];
        assert_eq!(sizes(chunks(&long, 100, 40)), [1]);
        assert!(chunks::<Any>(&[], 3, 40).is_empty());
    }

    #[test]
    fn an_int32_id_files_under_its_int64_ref() {
        let wanted = [(Ref::from_bson(Bson::Int64(5)), ())].into_iter().collect();
        let mut refs: Refs<Any, i32> = Refs::new(wanted);
        refs.file(&Ref::from_bson(Bson::Int32(5)), 1);
        assert_eq!(refs.get(&Ref::from_bson(Bson::Int64(5))), Some(&1));
    }
}
