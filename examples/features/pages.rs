//! Reads a real service writes: an activity feed served page by page
//! with keyset pagination, and a report of the same collection by a
//! typed aggregation.
//!
//! The feed is newest first: `sort(created_at.desc()).paginate(n)` reads
//! a page and an opaque `next` token; the client sends the token back for
//! the page after. Ties on `created_at` are broken by `_id`, and a page
//! starts strictly after the last item of the one before, so posts
//! arriving while someone scrolls never repeat or push an item out. A
//! compound index `(created_at desc, _id desc)` serves every page. A token
//! sent to another query (another filter here) is refused by name.
//!
//! The report groups the posts per author into a `Spend`-like row type,
//! with a typed `$match` and `$sort`, and streams the rows.

use futures_util::TryStreamExt;
use odm::page::PageErrorKind;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "posts", index(keys(created_at = -1, id = -1), name = "feed"))]
#[serde(rename_all = "camelCase")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: i32,
    pub author: String,
    pub created_at: i64,
    pub likes: i32,
}

/// One row of the report.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AuthorStats {
    #[serde(rename = "_id")]
    pub author: String,
    pub posts: i32,
    pub likes: i32,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// The ids of the feed as the client read it, page after page.
    pub feed: Vec<i32>,
    /// How many pages it took.
    pub pages: usize,
    /// Posts written while the client scrolled.
    pub written_meanwhile: usize,
    /// Whether a token sent to another query was refused as foreign.
    pub foreign_refused: bool,
    /// The report, most liked author first.
    pub report: Vec<AuthorStats>,
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let posts = Post::model(db);
    posts.sync_indexes().await?;
    let authors = ["ann", "bob", "cid"];
    let seed = (1..=20).map(|id| Post {
        id,
        author: authors[id as usize % 3].into(),
        created_at: i64::from(id / 2), // two posts per instant: ties
        likes: id % 5,
    });
    posts.insert_many(seed).await?;
    let f = Post::fields();

    // The client scrolls the feed, 6 posts a page; between its requests
    // others post (newer than anything it has seen).
    let mut feed = Vec::new();
    let mut pages = 0;
    let mut token: Option<String> = None;
    let mut written_meanwhile = 0;
    loop {
        let page = posts
            .find(doc! {})
            .sort(f.created_at().desc())
            .lean()
            .paginate(6)
            .after(token.as_deref())
            .await?;
        pages += 1;
        feed.extend(page.items.iter().map(|p| p.id));
        println!(
            "page {pages}: {:?}",
            page.items.iter().map(|p| p.id).collect::<Vec<_>>()
        );
        let id = 100 + pages as i32;
        let fresh = Post {
            id,
            author: "dee".into(),
            created_at: 1_000,
            likes: 0,
        };
        posts.create(fresh).await?;
        written_meanwhile += 1;
        match page.next {
            Some(next) => token = Some(next),
            None => break,
        }
    }

    // A token belongs to its query: another filter refuses it.
    let first = posts
        .find(doc! {})
        .sort(f.created_at().desc())
        .paginate(6)
        .await?;
    let refused = posts
        .find(f.author().eq("ann"))
        .sort(f.created_at().desc())
        .paginate(6)
        .after(first.next_token())
        .await;
    let foreign_refused = matches!(
        &refused,
        Err(Error::Page(e)) if e.kind == PageErrorKind::ForeignToken
    );
    if let Err(e) = &refused {
        println!("refused: {e}");
    }

    // The report: likes per author, typed rows, streamed.
    let mut rows = posts
        .aggregate([])
        .filter(f.created_at().lt(1_000))
        .stage(doc! { "$group": {
            "_id": "$author",
            "posts": { "$sum": 1 },
            "likes": { "$sum": "$likes" },
        } })
        .sort(doc! { "likes": -1, "_id": 1 })
        .with_type::<AuthorStats>()
        .stream()
        .await?;
    let mut report = Vec::new();
    while let Some(row) = rows.try_next().await? {
        println!("{}: {} posts, {} likes", row.author, row.posts, row.likes);
        report.push(row);
    }
    Ok(Outcome {
        feed,
        pages,
        written_meanwhile,
        foreign_refused,
        report,
    })
}
