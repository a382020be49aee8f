//! The cost of the rewrite guard (issue 21): a default-mode save that
//! rewrites an array also sends, in its filter, the array it loaded.
//!
//! Documents in default mode, shaped as `benches/SHAPES.md`'s: S (scalars
//! only: no array, so no rewrite and no guard), M (50 comments, 20 tags),
//! L (2,000 comments) and a 20,000-element array of 16-character strings.
//! The rewrite is a reverse of the array (a whole-array `$set`).
//!
//! Rows per shape: the filter's bytes with and without the guard, and the
//! update's; the client CPU of `changes()` for the rewrite and of the
//! guard's own part (finding and decoding the loaded array, what the guard
//! adds); end to end on the local server, a `save()` of the rewrite next to
//! the same `update_one` with the guard term taken out of the filter.
//!
//! The positional guard (issue 35): a default-mode save that edits one
//! array element in place also sends, in its filter, what it loaded at
//! that element. Rows `POSITION SHAPE ROW VALUE`: the edit of one comment's
//! text in the middle of M (comment 25), of the last comment of L (1,999,
//! the longest walk), of the last of 20,000 strings, and of every comment
//! of L in one save (`L_all`: one walk of the array); the filter's bytes
//! with and without the guard and the update's; the client CPU of
//! `changes()` on this model and on the same model with the array marked
//! `skip_versioning` (no guard, no version term), and of the guard's own
//! code alone (`position_guard_terms`: walk to the element, decode what it
//! held, build the term); end to end, a `save()` of the edit, and the same
//! `update_one` sent by the driver with and without the guard term (the
//! server's share).
//!
//! `cargo bench --bench rewrite_guard` (starts the local server;
//! `ODM_GUARD_OPS`, default 200, ops per end-to-end row, a tenth for L and
//! 20k). Prints one `GUARD SHAPE ROW VALUE` line per figure. The quick mode
//! (`ODM_BENCH_QUICK=1`) prints the positional guard's bytes and checks its
//! filter, without a server.

use std::time::{Duration, Instant};

use odm::__private::position_guard_terms;
use odm::bson::raw::RawDocumentBuf;
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Comment {
    #[serde(rename = "_id")]
    id: ObjectId,
    author: String,
    text: String,
    likes: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "guard_posts")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    counter: i32,
    comments: Vec<Comment>,
    tags: Vec<String>,
}

/// [`Post`] with its arrays out of versioning: the same save without the
/// positional guard (and without the version term).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "guard_posts_skipped")]
struct PostSkipped {
    #[serde(rename = "_id")]
    id: ObjectId,
    title: String,
    counter: i32,
    #[odm(skip_versioning)]
    comments: Vec<Comment>,
    #[odm(skip_versioning)]
    tags: Vec<String>,
}

fn text(i: usize, len: usize) -> String {
    let letters = b"abcdefghijklmnopqrstuvwxyz ";
    (0..len)
        .map(|j| letters[(i * 31 + j * 7) % letters.len()] as char)
        .collect()
}

fn post(comments: usize, tags: usize, tag_len: usize) -> Post {
    Post {
        id: ObjectId::new(),
        title: text(1, 60),
        counter: 0,
        comments: (0..comments)
            .map(|i| Comment {
                id: ObjectId::new(),
                author: text(i, 10),
                text: text(i + 1, 55),
                likes: (i % 17) as i32,
            })
            .collect(),
        tags: (0..tags).map(|i| text(i, tag_len)).collect(),
    }
}

/// Median of `runs` timings of `f` repeated until `min` elapsed, per call.
fn median_ns(mut f: impl FnMut()) -> u128 {
    let mut per_op = Vec::new();
    for _ in 0..5 {
        let (start, mut n) = (Instant::now(), 0u32);
        while start.elapsed() < Duration::from_millis(300) || n == 0 {
            f();
            n += 1;
        }
        per_op.push(start.elapsed().as_nanos() / u128::from(n));
    }
    per_op.sort();
    per_op[per_op.len() / 2]
}

fn bytes(d: &BsonDocument) -> usize {
    odm::bson::to_vec(d).map(|v| v.len()).unwrap_or(0)
}

fn rewrite(p: &mut Post, field: &str) {
    match field {
        "comments" => p.comments.reverse(),
        _ => p.tags.reverse(),
    }
}

async fn shape(t: &TestDb, name: &str, value: Post, field: &str, ops: usize) {
    let model = Post::model(&t.db);
    let raw = stored_form(&value);
    // Bytes.
    let mut doc = model.hydrate(&raw).unwrap();
    rewrite(&mut doc, field);
    let (filter, update) = doc.changes().expect("a rewrite");
    let guard = filter.get(field).cloned();
    let mut bare = filter.clone();
    bare.remove(field);
    println!("GUARD {name} filter_bytes {}", bytes(&filter));
    println!("GUARD {name} filter_bytes_unguarded {}", bytes(&bare));
    println!("GUARD {name} update_bytes {}", bytes(&update));
    assert!(guard.is_some(), "{name}: the rewrite is guarded");
    // Client CPU.
    let changes = median_ns(|| {
        std::hint::black_box(doc.changes());
    });
    let guard_part = median_ns(|| {
        let array = raw.get(field).unwrap().unwrap();
        let value = Bson::try_from(array).unwrap();
        std::hint::black_box(doc! { field: { "$eq": value } });
    });
    println!("GUARD {name} changes_ns {changes}");
    println!("GUARD {name} guard_part_ns {guard_part}");
    // End to end.
    let id = value.id;
    let mut doc = stored_copy(&model, &raw, id).await;
    let save_ns = timed_saves(&mut doc, ops, |p, _| rewrite(p, field)).await;
    let first = doc.version().unwrap();
    let (mut a, mut b) = (doc.comments.clone(), doc.tags.clone());
    let start = Instant::now();
    for version in first..first + ops as i64 {
        let arr = if field == "comments" {
            a.reverse();
            odm::bson::to_bson(&a).unwrap()
        } else {
            b.reverse();
            odm::bson::to_bson(&b).unwrap()
        };
        let done = model
            .collection()
            .update_one(
                doc! { "_id": id, "__v": version },
                doc! { "$set": { field: arr }, "$inc": { "__v": 1 } },
            )
            .await
            .unwrap();
        assert_eq!(done.matched_count, 1);
    }
    let bare_ns = start.elapsed().as_nanos() / ops as u128;
    println!("GUARD {name} save_rewrite_ns {save_ns}");
    println!("GUARD {name} update_one_unguarded_ns {bare_ns}");
}

/// One in-place edit: element `at` of `field` (a comment's text, or a tag),
/// its `n`th value.
fn edit(p: &mut Post, field: &str, at: &[usize], n: usize) {
    for &i in at {
        match field {
            "comments" => p.comments[i].text = format!("edited {n}"),
            _ => p.tags[i] = format!("edited {n}"),
        }
    }
}

fn edit_skipped(p: &mut PostSkipped, field: &str, at: &[usize], n: usize) {
    for &i in at {
        match field {
            "comments" => p.comments[i].text = format!("edited {n}"),
            _ => p.tags[i] = format!("edited {n}"),
        }
    }
}

/// The stored form of `value`, at version 0.
fn stored_form(value: &Post) -> RawDocumentBuf {
    let mut d = odm::bson::to_document(value).unwrap();
    d.insert("__v", 0);
    RawDocumentBuf::from_document(&d).unwrap()
}

/// `raw` inserted, and loaded back as a tracked copy.
async fn stored_copy(model: &Model<Post>, raw: &RawDocumentBuf, id: ObjectId) -> Doc<Post> {
    model
        .collection()
        .insert_one(raw.to_document().unwrap())
        .await
        .unwrap();
    model.find_by_id(id).await.unwrap().unwrap()
}

/// `ops` saves of `doc`, each after `change` (given the save's number):
/// nanoseconds per save.
async fn timed_saves(
    doc: &mut Doc<Post>,
    ops: usize,
    mut change: impl FnMut(&mut Post, usize),
) -> u128 {
    let start = Instant::now();
    for n in 0..ops {
        change(doc, n);
        doc.save().await.unwrap();
    }
    start.elapsed().as_nanos() / ops as u128
}

/// The positional guard's rows for an edit of the elements `at` of `field`.
async fn position(
    model: &Model<Post>,
    name: &str,
    value: Post,
    field: &str,
    at: &[usize],
    ops: usize,
) {
    let raw = stored_form(&value);
    // Bytes.
    let mut doc = model.hydrate(&raw).unwrap();
    edit(&mut doc, field, at, 0);
    let (filter, update) = doc.changes().expect("an edit");
    let mut bare = filter.clone();
    let guard = bare.remove("$expr");
    assert!(guard.is_some(), "{name}: the edit is guarded: {filter}");
    assert_eq!(
        bare.get("__v"),
        Some(&Bson::Int32(0)),
        "{name}: and checked"
    );
    println!("POSITION {name} filter_bytes {}", bytes(&filter));
    println!("POSITION {name} filter_bytes_unguarded {}", bytes(&bare));
    println!("POSITION {name} update_bytes {}", bytes(&update));
    let Some(db) = model_db(model) else {
        return;
    };
    // Client CPU: this model, the same edit unguarded, the guard's part.
    let changes = median_ns(|| {
        std::hint::black_box(doc.changes());
    });
    let skipped_model = PostSkipped::model(&db);
    let mut skipped = skipped_model.hydrate(&raw).unwrap();
    edit_skipped(&mut skipped, field, at, 0);
    assert!(!skipped.changes().unwrap().0.contains_key("$expr"));
    let unguarded = median_ns(|| {
        std::hint::black_box(skipped.changes());
    });
    let paths: Vec<String> = at
        .iter()
        .map(|i| match field {
            "comments" => format!("comments.{i}.text"),
            _ => format!("tags.{i}"),
        })
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let part = median_ns(|| {
        std::hint::black_box(position_guard_terms(&raw, &paths).unwrap());
    });
    println!("POSITION {name} changes_ns {changes}");
    println!("POSITION {name} changes_unguarded_ns {unguarded}");
    println!("POSITION {name} guard_part_ns {part}");
    // End to end.
    let id = value.id;
    let mut doc = stored_copy(model, &raw, id).await;
    let save_ns = timed_saves(&mut doc, ops, |p, n| edit(p, field, at, n + 1)).await;
    let guarded = timed_updates(model, &mut doc, field, at, ops, ops + 1, true).await;
    let bare = timed_updates(model, &mut doc, field, at, ops, 2 * ops + 1, false).await;
    println!("POSITION {name} save_edit_ns {save_ns}");
    println!("POSITION {name} update_one_guarded_ns {guarded}");
    println!("POSITION {name} update_one_unguarded_ns {bare}");
}

/// `ops` in-place edits of `doc` (values `first`, `first + 1`, ..) sent by
/// the driver as `changes()` builds them, the guard term taken out unless
/// `guarded`: nanoseconds per update. Only the update is timed; a reload
/// after each keeps the copy's loaded element what is stored.
async fn timed_updates(
    model: &Model<Post>,
    doc: &mut Doc<Post>,
    field: &str,
    at: &[usize],
    ops: usize,
    first: usize,
    guarded: bool,
) -> u128 {
    let mut total = Duration::ZERO;
    for n in 0..ops {
        edit(doc, field, at, first + n);
        let (mut filter, update) = doc.changes().unwrap();
        if !guarded {
            filter.remove("$expr");
        }
        let start = Instant::now();
        let done = model.collection().update_one(filter, update).await.unwrap();
        total += start.elapsed();
        assert_eq!(done.matched_count, 1);
        doc.reload().await.unwrap();
    }
    total.as_nanos() / ops as u128
}

/// The database of `model`, unless this is the quick mode (no server).
fn model_db(model: &Model<Post>) -> Option<mongodb::Database> {
    if std::env::var_os("ODM_BENCH_QUICK").is_some() {
        return None;
    }
    Some(model.database())
}

#[tokio::main]
async fn main() {
    let ops: usize = std::env::var("ODM_GUARD_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let few = (ops / 10).max(5);
    if std::env::var_os("ODM_BENCH_QUICK").is_some() {
        // No server: the positional guard's bytes and filter checks.
        let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
            .await
            .unwrap();
        let model = Post::model(&client.database("quick"));
        position(&model, "M", post(50, 20, 18), "comments", &[25], 0).await;
        position(&model, "20k", post(0, 20_000, 16), "tags", &[19_999], 0).await;
        return;
    }
    let t = TestDb::new().await;
    println!("GUARD S none (no array: a save of S never carries the guard)");
    shape(&t, "M", post(50, 20, 18), "comments", ops).await;
    shape(&t, "L", post(2_000, 20, 18), "comments", few).await;
    shape(&t, "20k", post(0, 20_000, 16), "tags", few).await;
    let model = Post::model(&t.db);
    println!("POSITION S none (no array: a save of S never carries the guard)");
    position(&model, "M", post(50, 20, 18), "comments", &[25], ops).await;
    position(&model, "L", post(2_000, 20, 18), "comments", &[1_999], few).await;
    position(&model, "20k", post(0, 20_000, 16), "tags", &[19_999], few).await;
    // Every comment of L edited in one save: the guard reads the array
    // once, not once per comment.
    let all: Vec<usize> = (0..2_000).collect();
    position(&model, "L_all", post(2_000, 20, 18), "comments", &all, few).await;
    t.finish().await;
}
