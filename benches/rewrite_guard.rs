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
//! The end-to-end sides of a row alternate call by call (each side first
//! in turn), each on a document of its own in a collection holding only
//! that row's documents, so load bursts from other processes fall on every
//! side alike: `ODM_GUARD_ROUNDS` (default 5) rounds, after a warm-up of a
//! tenth of the calls. Each call's wall time and this process's CPU time
//! (`getrusage`: the server is another process) are summed per side; the
//! `COMPARE` lines give the ratios of the sums (wall, then CPU) and the
//! spread of the per-round wall ratios.
//!
//! `cargo bench --bench rewrite_guard [-- WORD...]` (starts the local
//! server; `ODM_GUARD_OPS`, default 200, calls per side of an end-to-end
//! row, a tenth for L, 20k and `L_all`). Words pick rows: `GUARD` or
//! `POSITION` (the section), and shapes (`M L 20k L_all`); with none, every
//! row. Prints one `GUARD SHAPE ROW VALUE` or `POSITION SHAPE ROW VALUE`
//! line per figure. The quick mode (`ODM_BENCH_QUICK=1`) prints the
//! positional guard's bytes and checks its filter, without a server.

#[path = "rewrite_guard/alternate.rs"]
mod alternate;
#[path = "cpu/usage.rs"]
mod usage;

use std::time::{Duration, Instant};

use alternate::{alternate, Change, Side};
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

async fn shape(t: &TestDb, name: &str, value: Post, field: &'static str, ops: usize) {
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
    // End to end: `save()` of the rewrite, alternated with the same
    // rewrite sent by the driver without the guard term.
    let [save, bare] = copies(&model, &value).await;
    let mut sides = [
        Side::Save(save),
        Side::Bare {
            value: (*bare).clone(),
            version: bare.version().unwrap(),
        },
    ];
    let sums = alternate(&mut sides, &Change::Rewrite(field), ops).await;
    let rows = ["save_rewrite", "update_one_unguarded"];
    sums.print("GUARD", name, &rows);
    sums.compare("GUARD", name, &rows, (0, 1));
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

/// `N` copies of `value` stored under ids of their own in `model`'s
/// collection (emptied first: it holds only this row's documents), each
/// loaded back as a tracked copy.
async fn copies<const N: usize>(model: &Model<Post>, value: &Post) -> [Doc<Post>; N] {
    model.collection().delete_many(doc! {}).await.unwrap();
    let mut out = Vec::new();
    for _ in 0..N {
        let copy = Post {
            id: ObjectId::new(),
            ..value.clone()
        };
        let raw = stored_form(&copy);
        model
            .collection()
            .insert_one(raw.to_document().unwrap())
            .await
            .unwrap();
        out.push(model.find_by_id(copy.id).await.unwrap().unwrap());
    }
    out.try_into().ok().unwrap()
}

/// The positional guard's rows for an edit of the elements `at` of `field`.
async fn position(
    model: &Model<Post>,
    name: &str,
    value: Post,
    field: &'static str,
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
    // End to end: `save()` of the edit, and the `update_one` it sends
    // sent by the driver with the guard term and without it, alternated.
    let [save, guarded, unguarded] = copies(model, &value).await;
    let mut sides = [
        Side::Save(save),
        Side::Update(guarded, true),
        Side::Update(unguarded, false),
    ];
    let change = Change::Edit(field, at.to_vec());
    let sums = alternate(&mut sides, &change, ops).await;
    let rows = ["save_edit", "update_one_guarded", "update_one_unguarded"];
    sums.print("POSITION", name, &rows);
    sums.compare("POSITION", name, &rows, (1, 2));
    sums.compare("POSITION", name, &rows, (0, 1));
}

/// The positive integer in the environment variable `name`, else
/// `default`.
fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// The rows the command line's words pick: a section (`GUARD`,
/// `POSITION`) and shapes; none of a kind picks every one of that kind.
struct Words(Vec<String>);

impl Words {
    const SECTIONS: [&str; 2] = ["GUARD", "POSITION"];
    const SHAPES: [&str; 5] = ["S", "M", "L", "20k", "L_all"];

    fn from_args() -> Words {
        // cargo bench passes `--bench`; other flags are ignored too.
        let words: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        for w in &words {
            assert!(
                Self::SECTIONS.contains(&w.as_str()) || Self::SHAPES.contains(&w.as_str()),
                "unknown word {w:?}: sections {:?}, shapes {:?}",
                Self::SECTIONS,
                Self::SHAPES
            );
        }
        Words(words)
    }

    fn wants(&self, section: &str, shape: &str) -> bool {
        let picks = |of: &[&str], this: &str| {
            let named: Vec<&String> = self.0.iter().filter(|w| of.contains(&w.as_str())).collect();
            named.is_empty() || named.iter().any(|w| *w == this)
        };
        picks(&Self::SECTIONS, section) && picks(&Self::SHAPES, shape)
    }
}

/// The database of `model`, unless this is the quick mode (no server).
fn model_db(model: &Model<Post>) -> Option<mongodb::Database> {
    if std::env::var_os("ODM_BENCH_QUICK").is_some() {
        return None;
    }
    Some(model.database())
}

// One thread: the driver's tasks run on the bench thread, so the process's
// CPU time around a call is that call's.
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let ops = env_usize("ODM_GUARD_OPS", 200);
    let few = (ops / 10).max(5);
    let words = Words::from_args();
    let (m, l, k20) = (
        || post(50, 20, 18),
        || post(2_000, 20, 18),
        || post(0, 20_000, 16),
    );
    if std::env::var_os("ODM_BENCH_QUICK").is_some() {
        // No server: the positional guard's bytes and filter checks.
        let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
            .await
            .unwrap();
        let model = Post::model(&client.database("quick"));
        if words.wants("POSITION", "M") {
            position(&model, "M", m(), "comments", &[25], 0).await;
        }
        if words.wants("POSITION", "20k") {
            position(&model, "20k", k20(), "tags", &[19_999], 0).await;
        }
        return;
    }
    let t = TestDb::new().await;
    if words.wants("GUARD", "S") {
        println!("GUARD S none (no array: a save of S never carries the guard)");
    }
    if words.wants("GUARD", "M") {
        shape(&t, "M", m(), "comments", ops).await;
    }
    if words.wants("GUARD", "L") {
        shape(&t, "L", l(), "comments", few).await;
    }
    if words.wants("GUARD", "20k") {
        shape(&t, "20k", k20(), "tags", few).await;
    }
    let model = Post::model(&t.db);
    if words.wants("POSITION", "S") {
        println!("POSITION S none (no array: a save of S never carries the guard)");
    }
    if words.wants("POSITION", "M") {
        position(&model, "M", m(), "comments", &[25], ops).await;
    }
    if words.wants("POSITION", "L") {
        position(&model, "L", l(), "comments", &[1_999], few).await;
    }
    if words.wants("POSITION", "20k") {
        position(&model, "20k", k20(), "tags", &[19_999], few).await;
    }
    // Every comment of L edited in one save: the guard reads the array
    // once, not once per comment.
    if words.wants("POSITION", "L_all") {
        let all: Vec<usize> = (0..2_000).collect();
        position(&model, "L_all", l(), "comments", &all, few).await;
    }
    t.finish().await;
}
