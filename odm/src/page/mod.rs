//! Keyset pagination: pages that continue from the last item's sort key
//! values (and `_id`), not from a count of skipped documents.
//!
//! `find(..).sort(..).paginate(n)` reads one [`Page`] of at most `n`
//! items and, unless it was the last, an opaque continuation token;
//! `.after(token)` reads the page that follows. [`Paginate::stream`]
//! walks every page as one `Stream` of items. See the crate guide,
//! [Pagination](crate#pagination).
//!
//! - **Order.** The query's sort, then `_id` in the direction of the
//!   sort's last key, so ties (and an unsorted query: `_id` ascending)
//!   have one order. Each page is one `find` with the filter
//!   `{ $and: [<your filter>, <after the token's key values>] }`, that
//!   sort and `limit: n + 1` (the extra item tells whether a next page
//!   exists; it is not returned).
//! - **Concurrent writes.** A page starts strictly after the last item
//!   of the page before, by value: every document that exists (and keeps
//!   its sort key) for the whole walk is returned exactly once, whatever
//!   is inserted or deleted meanwhile. A document inserted during the walk
//!   appears if it sorts after the current position.
//! - **Null and missing sort values** sort first ascending and last
//!   descending, as MongoDB sorts them, and are continued from like any
//!   value. A sort key must hold one type in every document (numbers of any
//!   width are one type), since `$gt` / `$lt` compare within a type; an
//!   array at a sort key is refused ([`PageErrorKind::ArrayKey`]).
//! - **Tokens.** A token holds the last item's key values and a
//!   fingerprint of the collection, filter and sort: a token of another
//!   query is refused ([`PageErrorKind::ForeignToken`]), anything else
//!   that is not a token too ([`PageErrorKind::MalformedToken`]), before
//!   anything is sent. It is opaque, not secret: it encodes those values.
//! - **An index.** A compound index on the sort keys followed by `_id`
//!   (`#[odm(index(keys(created_at = -1, _id = -1)))]`) serves every page
//!   from the index, each as cheap as the first; pass it with
//!   [`Find::hint`](crate::Find::hint) to be sure.
//! - **Kinds of items.** Tracked [`Doc`]s from
//!   [`Find::paginate`](crate::Find::paginate), plain values from
//!   `find(..).lean().paginate(n)`, projections from
//!   `find(..).projection::<P>().paginate(n)` (the sort keys are added to
//!   the projection, so the next token can be made).
//! - `skip` / `limit` stay on [`Find`] for offset pages; they
//!   do not combine with `paginate` ([`PageErrorKind::Options`]).

mod keyset;
mod stream;
mod token;

use mongodb::bson::raw::RawDocumentBuf;
use mongodb::bson::{Bson, Document as BsonDocument};
use mongodb::options::FindOptions;
use mongodb::ClientSession;
use serde::de::DeserializeOwned;

pub use crate::error::{PageError, PageErrorKind};
pub use stream::PageStream;

use crate::error::{from_driver, Error, Result};
use crate::model::doc::Doc;
use crate::model::query::Find;
use crate::model::stream::Source;
use crate::model::Document;
use crate::model::Model;
use crate::typed::Lean;
use crate::wire::command_log::Command;
use crate::wire::session::awaitable;
use crate::wire::session::BoxFuture;

/// One page of a [`Paginate`] read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Page<V> {
    /// The items, in the query's order; at most the page size.
    pub items: Vec<V>,
    /// The token of the next page (pass it to [`Paginate::after`]);
    /// `None` when this page is the last.
    pub next: Option<String>,
}

impl<V> Page<V> {
    /// The items, in the query's order.
    pub fn items(&self) -> &[V] {
        &self.items
    }

    /// The token of the next page; `None` when this page is the last.
    pub fn next_token(&self) -> Option<&str> {
        self.next.as_deref()
    }

    /// The items, taken out of the page.
    pub fn into_items(self) -> Vec<V> {
        self.items
    }
}

/// Turns a stored document into an item of a page.
type Decode<T, V> = fn(&Model<T>, RawDocumentBuf, Option<&BsonDocument>) -> Result<V>;

impl<'a, T: Document> Find<'a, T> {
    /// Keyset pages of at most `size` tracked documents, in this query's
    /// sort with `_id` as the tiebreak: `.await` it for the first
    /// [`Page`], add [`after`](Paginate::after) for a later one, or
    /// [`stream`](Paginate::stream) every item. See [`page`](crate::page).
    pub fn paginate(self, size: u32) -> Paginate<'a, T, Doc<T>> {
        Paginate::new(self, size, |model, raw, _| model.track(raw))
    }
}

impl<'a, T: Document, V: DeserializeOwned + 'a> Lean<'a, T, V> {
    /// Keyset pages of at most `size` plain (or projected) values, as
    /// [`Find::paginate`] pages tracked ones.
    pub fn paginate(self, size: u32) -> Paginate<'a, T, V> {
        Paginate::new(self.find, size, |model, raw, projection| {
            crate::typed::lean_decode::<T, V>(&raw, model.name(), projection)
        })
    }
}

/// A pending keyset page read; `.await` it for a [`Page`], or call
/// [`stream`](Paginate::stream). From [`Find::paginate`] or
/// [`Lean::paginate`].
#[must_use = "nothing is read until it is awaited"]
pub struct Paginate<'a, T: Document, V> {
    find: Find<'a, T>,
    size: u32,
    after: Option<String>,
    decode: Decode<T, V>,
}

/// What every page of one walk shares.
struct Walk<'a, T: Document, V> {
    model: &'a Model<T>,
    filter: BsonDocument,
    options: FindOptions,
    keys: Vec<keyset::Key>,
    fingerprint: i64,
    size: u32,
    decode: Decode<T, V>,
}

/// One page as read: its items (each decoded, or its error) with their
/// key values, and whether more follow.
struct Fetched<V> {
    items: Vec<(Result<V>, Vec<Bson>)>,
    more: bool,
}

impl<'a, T: Document, V: 'a> Paginate<'a, T, V> {
    fn new(find: Find<'a, T>, size: u32, decode: Decode<T, V>) -> Self {
        Paginate {
            find,
            size,
            after: None,
            decode,
        }
    }

    /// The page after the one that gave `token` ([`Page::next`]); `None`
    /// (or not calling this) reads the first page. A token of another
    /// query, or no token at all, fails with [`Error::Page`] before
    /// anything is sent.
    pub fn after<'t>(mut self, token: impl Into<Option<&'t str>>) -> Self {
        self.after = token.into().map(str::to_string);
        self
    }

    /// Reads inside `session` (and its transaction, if one is open); a
    /// [`stream`](Paginate::stream) reads every page in it.
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.find = self.find.session(session);
        self
    }

    /// Every item from the [`after`](Paginate::after) token on (the
    /// first, without one), page after page, as one `Stream`; a page is
    /// read when the one before is used up, so the stream holds one page
    /// at a time. An item that does not decode is one `Err` item and the
    /// stream goes on; a failed read is the last item.
    /// [`PageStream::next_token`] resumes it later.
    pub fn stream(self) -> BoxFuture<'a, Result<PageStream<'a, V>>>
    where
        V: Send,
    {
        Box::pin(async move {
            let (walk, after, mut session) = self.start()?;
            let first = walk.fetch(after.as_deref(), session.as_deref_mut()).await?;
            Ok(PageStream::new(walk, first, session))
        })
    }

    /// Checks the query and the token: the walk, the token's key values.
    #[allow(clippy::type_complexity)]
    fn start(
        self,
    ) -> Result<(
        Walk<'a, T, V>,
        Option<Vec<Bson>>,
        Option<&'a mut ClientSession>,
    )> {
        let Paginate {
            find,
            size,
            after,
            decode,
        } = self;
        let Find {
            model,
            filter,
            mut options,
            session,
        } = find;
        let ns = model.collection().namespace().to_string();
        let refuse = |kind| Error::Page(Box::new(PageError::new(ns.clone(), kind)));
        let options_refused = |message: &str| {
            refuse(PageErrorKind::Options {
                message: message.to_string(),
            })
        };
        if options.skip.is_some() || options.limit.is_some() {
            return Err(options_refused(
                "skip and limit do not combine with paginate: the page size and the token \
                 say where a page starts and ends",
            ));
        }
        if size == 0 {
            return Err(options_refused("the page size must be at least 1"));
        }
        let keys = keyset::full_sort(options.sort.as_ref()).map_err(|r| match r {
            keyset::Refusal::Direction(path) => refuse(PageErrorKind::Sort { path }),
            keyset::Refusal::Array(path) => refuse(PageErrorKind::ArrayKey { path }),
        })?;
        let fingerprint = token::fingerprint(&ns, &filter, &keys);
        let after = match after {
            None => None,
            Some(text) => Some(
                token::decode(&text, fingerprint, keys.len()).map_err(|bad| match bad {
                    token::Bad::Malformed => refuse(PageErrorKind::MalformedToken),
                    token::Bad::Foreign => refuse(PageErrorKind::ForeignToken),
                })?,
            ),
        };
        options.sort = Some(keyset::sort_document(&keys));
        options.limit = Some(i64::from(size) + 1);
        if options.batch_size.is_none() {
            options.batch_size = Some(size.saturating_add(1));
        }
        if let Some(projection) = options.projection.as_mut() {
            keyset::cover(projection, &keys);
        }
        let walk = Walk {
            model,
            filter,
            options,
            keys,
            fingerprint,
            size,
            decode,
        };
        Ok((walk, after, session))
    }
}

impl<'a, T: Document, V> Walk<'a, T, V> {
    /// Reads the page after `after` (the first without it).
    async fn fetch(
        &self,
        after: Option<&[Bson]>,
        session: Option<&mut ClientSession>,
    ) -> Result<Fetched<V>> {
        let model = self.model;
        let filter = match after {
            Some(values) => keyset::both(self.filter.clone(), keyset::after(&self.keys, values)),
            None => self.filter.clone(),
        };
        let log = Command::new(model.name(), "find").filter(&filter);
        let action = model
            .raw_collection()
            .find(filter)
            .with_options(self.options.clone());
        let mut source = match session {
            Some(s) => {
                let cursor = log.send(async { action.session(&mut *s).await }).await;
                Source::Session(cursor.map_err(|e| from_driver(e, model.name()))?, s)
            }
            None => Source::Plain(
                log.send(action)
                    .await
                    .map_err(|e| from_driver(e, model.name()))?,
            ),
        };
        let mut raws = Vec::with_capacity(self.size as usize + 1);
        while let Some(raw) = source.next().await {
            raws.push(raw.map_err(|e| from_driver(e, model.name()))?);
        }
        let more = raws.len() > self.size as usize;
        raws.truncate(self.size as usize);
        let mut items = Vec::with_capacity(raws.len());
        for raw in raws {
            let values = keyset::values(&raw, &self.keys).map_err(|r| {
                let path = match r {
                    keyset::Refusal::Array(path) | keyset::Refusal::Direction(path) => path,
                };
                let ns = model.collection().namespace().to_string();
                Error::Page(Box::new(PageError::new(
                    ns,
                    PageErrorKind::ArrayKey { path },
                )))
            })?;
            let projection = self.options.projection.as_ref();
            items.push(((self.decode)(model, raw, projection), values));
        }
        Ok(Fetched { items, more })
    }

    /// The token after an item with these key values.
    fn token(&self, values: &[Bson]) -> String {
        token::encode(self.fingerprint, values.to_vec())
    }
}

awaitable! {
    impl['a, T: Document, V: Send + 'a] Paginate<'a, T, V> => Result<Page<V>>;
    into_future(self) async move {
        let (walk, after, session) = self.start()?;
        let fetched = walk.fetch(after.as_deref(), session).await?;
        let next = match (fetched.more, fetched.items.last()) {
            (true, Some((_, values))) => Some(walk.token(values)),
            _ => None,
        };
        let items = fetched
            .items
            .into_iter()
            .map(|(item, _)| item)
            .collect::<Result<Vec<V>>>()?;
        Ok(Page { items, next })
    }
}
