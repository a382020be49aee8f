//! Posts and their authors.
//!
//! A post names its author with a `Ref<Author>`, stored as the author's
//! `_id`. A page of posts gets its authors with one query
//! ([`Model::find_refs`]) or one aggregation (`lookup`), not one read per
//! post. And the link holds under races: an author with posts cannot be
//! deleted (`on_delete = refuse`), a reviewer who goes is pulled from the
//! posts they reviewed (`on_delete = pull`), and a post by an author who
//! is being deleted at that very moment is either refused or keeps the
//! author alive: never a post by nobody.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "authors", referenced_by(Post))]
pub struct Author {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    /// An author with posts cannot be deleted.
    #[odm(reference(on_delete = refuse), index)]
    pub author: Ref<Author>,
    /// A reviewer who is deleted leaves the list.
    #[odm(reference(on_delete = pull), index)]
    pub reviewers: Vec<Ref<Author>>,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// Posts on the page, and authors read for them in one query.
    pub posts: usize,
    pub authors_read: usize,
    /// `Error::Referenced` when deleting an author with posts.
    pub refused_delete: bool,
    /// The deleted reviewer's id was pulled from every post.
    pub reviewer_pulled: bool,
    /// `Error::Dangling` for a post by a deleted author.
    pub refused_post: bool,
    /// Of a delete and a new post racing for one author: what landed.
    pub race_deleted: bool,
    pub race_posted: bool,
    /// Posts whose author is gone, found by a scan (none).
    pub dangling: usize,
}

fn author(name: &str) -> Author {
    Author {
        id: ObjectId::new(),
        name: name.into(),
    }
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let (authors, posts) = (Author::model(db), Post::model(db));
    posts.sync_indexes().await?;
    let team: Vec<Author> = ["Ann", "Bob", "Cy"].into_iter().map(author).collect();
    authors.insert_many(team.clone()).await?;
    let reviewer = authors.create(author("Dee")).await?;

    // Each post is written in a transaction that also marks its authors,
    // so a concurrent delete of one of them cannot slip between.
    let page: Vec<Post> = (0..30)
        .map(|i| Post {
            id: ObjectId::new(),
            title: format!("post {i}"),
            author: Ref::from(&team[i % 3]),
            reviewers: vec![Ref::from(&*reviewer)],
        })
        .collect();
    posts.insert_many(page).await?;

    // A page of posts and their authors: one `find` for all of them.
    let page = posts.find(doc! {}).sort(doc! { "title": 1 }).await?;
    let by = authors.find_refs(page.iter().map(|p| &p.author)).await?;
    for post in page.iter().take(3) {
        let name = by
            .get(&post.author)
            .map_or("(deleted)", |a| a.name.as_str());
        println!("{} by {name}", post.title);
    }
    println!(
        "... {} posts, {} authors read in one query",
        page.len(),
        by.len()
    );

    // The same join on the server, decoded into `Doc<Author>`s.
    let f = Post::fields();
    let joined = posts
        .aggregate([])
        .filter(f.title().eq("post 1"))
        .lookup(f.author(), &authors)
        .await?;
    println!("lookup: post 1 by {}", joined[0].joined[0].name);

    // Ann has posts: her delete is refused, naming how many and one.
    let mut ann = authors.find_by_id(team[0].id).await?.expect("stored");
    let refused_delete = match ann.delete().await {
        Err(Error::Referenced(e)) => {
            println!("refused: {e}");
            true
        }
        other => {
            other?;
            false
        }
    };

    // Dee only reviewed: deleting her pulls her from every post.
    let mut dee = reviewer;
    dee.delete().await?;
    let reviewer_pulled = posts
        .count(f.reviewers().contains(Ref::from(&*dee)))
        .await?
        == 0;
    println!("Dee deleted and pulled from the posts' reviewers: {reviewer_pulled}");

    // A post by Dee now is refused: she does not exist.
    let ghost_post = Post {
        id: ObjectId::new(),
        title: "by a ghost".into(),
        author: Ref::from(&*dee),
        reviewers: vec![],
    };
    let refused_post = match posts.create(ghost_post).await {
        Err(Error::Dangling(e)) => {
            println!("refused: {e}");
            true
        }
        other => {
            other?;
            false
        }
    };

    // Eve is deleted while another instance posts as her, at once.
    let eve = authors.create(author("Eve")).await?;
    let eve_ref = Ref::from(&*eve);
    let deleting = {
        let authors = authors.clone();
        let id = eve.id;
        tokio::spawn(async move { authors.delete_many(doc! { "_id": id }).await })
    };
    let posting = {
        let posts = posts.clone();
        let post = Post {
            id: ObjectId::new(),
            title: "Eve's last post".into(),
            author: eve_ref.clone(),
            reviewers: vec![],
        };
        tokio::spawn(async move { posts.create(post).await })
    };
    let deleted = deleting.await.expect("task");
    let posted = posting.await.expect("task");
    let race_deleted = matches!(deleted, Ok(1));
    let race_posted = posted.is_ok();
    println!(
        "race for Eve: delete {}, post {}",
        if race_deleted { "landed" } else { "refused" },
        if race_posted { "landed" } else { "refused" },
    );

    // The scan: every post's author exists.
    let all = posts.find(doc! {}).await?;
    let found = authors.find_refs(all.iter().map(|p| &p.author)).await?;
    let dangling = all
        .iter()
        .filter(|p| found.get(&p.author).is_none())
        .count();
    println!("posts by nobody: {dangling}");
    Ok(Outcome {
        posts: page.len(),
        authors_read: by.len(),
        refused_delete,
        reviewer_pulled,
        refused_post,
        race_deleted,
        race_posted,
        dangling,
    })
}
