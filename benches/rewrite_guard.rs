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
//! `cargo bench --bench rewrite_guard` (starts the local server;
//! `ODM_GUARD_OPS`, default 200, ops per end-to-end row, a tenth for L and
//! 20k). Prints one `GUARD SHAPE ROW VALUE` line per figure.

use std::time::{Duration, Instant};

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
    let raw = RawDocumentBuf::from_document(&{
        let mut d = odm::bson::to_document(&value).unwrap();
        d.insert("__v", 0);
        d
    })
    .unwrap();
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
    model
        .collection()
        .insert_one(raw.to_document().unwrap())
        .await
        .unwrap();
    let id = value.id;
    let mut doc = model.find_by_id(id).await.unwrap().unwrap();
    let start = Instant::now();
    for _ in 0..ops {
        rewrite(&mut doc, field);
        doc.save().await.unwrap();
    }
    let save_ns = start.elapsed().as_nanos() / ops as u128;
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

#[tokio::main]
async fn main() {
    let ops: usize = std::env::var("ODM_GUARD_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    if std::env::var_os("ODM_BENCH_QUICK").is_some() {
        return;
    }
    let t = TestDb::new().await;
    println!("GUARD S none (no array: a save of S never carries the guard)");
    shape(&t, "M", post(50, 20, 18), "comments", ops).await;
    shape(&t, "L", post(2_000, 20, 18), "comments", (ops / 10).max(5)).await;
    shape(&t, "20k", post(0, 20_000, 16), "tags", (ops / 10).max(5)).await;
    t.finish().await;
}
