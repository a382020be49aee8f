//! Keyset pagination (issue 19, item 4) against the server: the items of
//! every page and the `find` each page sends, ties broken by `_id`, null
//! and missing sort values, tokens refused when they belong to another
//! query, tracked / lean / projected items, the stream of every item, a
//! session, and a walk racing real concurrent inserts.
//!
//! The model and the seeding are here, with the tests under their names;
//! their bodies are in `walks.rs` (the items and the `find` of every page),
//! `refusals.rs` (what is refused before sending), `stream.rs` (the stream
//! of every item) and `session_and_races.rs` (a session, concurrent
//! inserts).

use crate::common;
mod refusals;
mod session_and_races;
mod stream;
mod walks;

use common::Monitored;
use odm::page::Page;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events", index(keys(created_at = -1, id = -1), name = "by_time"))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(rename = "_id")]
    pub id: i32,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub created_at: Option<i64>,
    pub tags: Vec<String>,
}

/// What a feed shows of an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct EventCard {
    pub kind: String,
}

fn event(id: i32, created_at: Option<i64>) -> Event {
    Event {
        id,
        kind: if id % 2 == 0 { "even" } else { "odd" }.into(),
        created_at,
        tags: vec![],
    }
}

/// `n` events, three per `created_at` value, so ties are common.
async fn seeded(label: &str, n: i32) -> (Monitored, Model<Event>, Vec<Event>) {
    let m = Monitored::new(label).await;
    let events = Model::<Event>::new(m.db());
    let all: Vec<Event> = (1..=n)
        .map(|id| event(id, Some(i64::from(id / 3))))
        .collect();
    for outcome in events.insert_many(all.clone()).await.unwrap() {
        outcome.unwrap();
    }
    m.monitor.clear();
    (m, events, all)
}

/// The ids of `all` in (created_at, _id) order, descending when `desc`;
/// a missing `created_at` sorts as the smallest.
fn ordered(all: &[Event], desc: bool) -> Vec<i32> {
    let mut ids: Vec<(Option<i64>, i32)> = all.iter().map(|e| (e.created_at, e.id)).collect();
    ids.sort();
    if desc {
        ids.reverse();
    }
    ids.into_iter().map(|(_, id)| id).collect()
}

fn ids(page: &Page<Doc<Event>>) -> Vec<i32> {
    page.items.iter().map(|e| e.id).collect()
}

// ---------------------------------------------------------------------------
// The items and the find of every page (walks.rs)

#[tokio::test]
async fn pages_walk_every_document_once_newest_first_ties_by_id() {
    walks::pages_walk_every_document_once_newest_first_ties_by_id().await;
}

#[tokio::test]
async fn an_exact_multiple_ends_without_an_empty_page_and_no_sort_pages_by_id() {
    walks::an_exact_multiple_ends_without_an_empty_page_and_no_sort_pages_by_id().await;
}

#[tokio::test]
async fn typed_filters_lean_values_and_projections_page_alike() {
    walks::typed_filters_lean_values_and_projections_page_alike().await;
}

#[tokio::test]
async fn null_and_missing_sort_values_come_first_ascending_and_last_descending() {
    walks::null_and_missing_sort_values_come_first_ascending_and_last_descending().await;
}

// ---------------------------------------------------------------------------
// Tokens and sorts refused before anything is sent (refusals.rs)

#[tokio::test]
async fn a_token_of_another_query_is_refused_before_anything_is_sent() {
    refusals::a_token_of_another_query_is_refused_before_anything_is_sent().await;
}

#[tokio::test]
async fn an_array_sort_key_and_a_meta_sort_are_refused_by_name() {
    refusals::an_array_sort_key_and_a_meta_sort_are_refused_by_name().await;
}

// ---------------------------------------------------------------------------
// The stream of every item (stream.rs)

#[tokio::test]
async fn the_stream_yields_every_item_and_its_token_resumes_it() {
    stream::the_stream_yields_every_item_and_its_token_resumes_it().await;
}

// ---------------------------------------------------------------------------
// Inside a session, and racing concurrent inserts (session_and_races.rs)

#[tokio::test]
async fn pages_read_inside_a_session() {
    session_and_races::pages_read_inside_a_session().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walk_racing_concurrent_inserts_repeats_and_skips_nothing() {
    session_and_races::a_walk_racing_concurrent_inserts_repeats_and_skips_nothing().await;
}
