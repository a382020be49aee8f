//! The odm demo: the race conditions a multi-instance service meets, and
//! how odm turns each into a clear outcome.
//!
//! Runs against `MONGODB_URI` when set, else against a local SecantusDB
//! server it installs and starts itself (and stops at exit).
//!
//!     cargo run --example demo

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency, validate = Self::avatar_rules)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[odm(unique)]
    pub email: String,
    #[odm(one_of("NEW", "APPROVED", "BANNED"))]
    pub status: String,
    #[odm(validate = https_only)]
    pub avatar: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
}

impl User {
    /// A rule across fields: it must hold in the database, not only in one copy.
    fn avatar_rules(&self) -> Result<(), ValidationError> {
        if self.status == "APPROVED" && self.avatar.is_none() {
            return Err(ValidationError::new(
                "avatar",
                "required when status is APPROVED",
            ));
        }
        Ok(())
    }
}

fn https_only(avatar: &Option<String>) -> Result<(), String> {
    match avatar {
        Some(url) if !url.starts_with("https://") => Err("must be an https URL".into()),
        _ => Ok(()),
    }
}

/// A background job that several service instances poll.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "jobs", index(keys(state = 1), name = "queue"))]
pub struct Job {
    #[serde(rename = "_id")]
    pub id: i64,
    pub state: String,
    pub worker: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub likes: Vec<String>,
}

fn show(label: &str, changes: Option<(odm::bson::Document, odm::bson::Document)>) {
    match changes {
        Some((filter, update)) => println!("  {label}\n    filter: {filter}\n    update: {update}"),
        None => println!("  {label}: nothing to write"),
    }
}

#[tokio::main]
async fn main() -> odm::Result<()> {
    let uri = odm::testing::uri();
    println!("odm demo against {uri}\n");
    let client = mongodb::Client::with_uri_str(&uri).await?;
    let db = client.database(&format!("odm_demo_{}", std::process::id()));

    let users = User::model(&db);
    let report = users.sync_indexes().await?;
    println!("indexes created: {:?}\n", report.created);

    // 1. A stale copy never overwrites a newer one.
    println!("1. Two requests load the same user; both change it.");
    let id = ObjectId::new();
    users
        .create(User {
            id,
            email: "ann@example.com".into(),
            status: "NEW".into(),
            avatar: None,
            tags: vec![],
        })
        .await?;
    let mut a = users.find_by_id(id).await?.expect("stored");
    let mut b = users.find_by_id(id).await?.expect("stored");
    a.status = "APPROVED".into();
    a.avatar = Some("https://img.example.com/ann.png".into());
    show("request A sends", a.changes());
    a.save().await?;
    println!("  A saved; version is now {:?}", a.version());
    b.status = "BANNED".into();
    show("request B (stale) would send", b.changes());
    match b.save().await {
        Err(Error::Version(e)) => {
            println!("  B failed as it should: {e}");
            b.reload().await?;
            println!(
                "  B reloaded: status {}, avatar {:?}, version {:?}",
                b.status,
                b.avatar,
                b.version()
            );
        }
        other => panic!("expected a version error, got {other:?}"),
    }

    // 2. Concurrent appends both land: Mongoose's array versioning.
    println!("\n2. Two requests like the same post at once (default versioning).");
    let posts = Post::model(&db);
    let pid = ObjectId::new();
    posts
        .create(Post {
            id: pid,
            title: "Hello".into(),
            likes: vec![],
        })
        .await?;
    let mut a = posts.find_by_id(pid).await?.expect("stored");
    let mut b = posts.find_by_id(pid).await?.expect("stored");
    a.likes.push("ann".into());
    b.likes.push("bob".into());
    show("A sends", a.changes());
    a.save().await?;
    b.save().await?;
    let stored = posts.find_by_id(pid).await?.expect("stored");
    println!(
        "  both landed: likes {:?}, version {:?}",
        stored.likes,
        stored.version()
    );

    // 3. An in-place edit from a stale copy is refused once positions moved.
    println!("\n3. A removes a like while B edits one by position.");
    let mut a = posts.find_by_id(pid).await?.expect("stored");
    let mut b = posts.find_by_id(pid).await?.expect("stored");
    a.likes.retain(|l| l != "ann");
    a.save().await?;
    b.likes[0] = "ANN".into();
    show("B (stale) would send", b.changes());
    match b.save().await {
        Err(Error::Version(e)) => println!("  B refused: {e}"),
        other => panic!("expected a version error, got {other:?}"),
    }

    // 4. Two sign-ups with one email at once: the unique index decides.
    println!("\n4. Ten requests sign up the same email at once.");
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let users = users.clone();
        tasks.push(tokio::spawn(async move {
            users
                .create(User {
                    id: ObjectId::new(),
                    email: "bob@example.com".into(),
                    status: "NEW".into(),
                    avatar: None,
                    tags: vec![],
                })
                .await
        }));
    }
    let (mut created, mut duplicates) = (0, 0);
    for task in tasks {
        match task.await.expect("task") {
            Ok(_) => created += 1,
            Err(Error::DuplicateKey(e)) => {
                duplicates += 1;
                if duplicates == 1 {
                    println!("  refused: {e}");
                }
            }
            Err(e) => return Err(e),
        }
    }
    println!("  {created} created, {duplicates} refused as duplicates");

    // 5. Validators run before every write; nothing is sent on failure.
    println!("\n5. Approving a user whose avatar is not https.");
    let mut bob = users
        .find_one(doc! { "email": "bob@example.com" })
        .await?
        .expect("stored");
    bob.status = "APPROVED".into();
    bob.avatar = Some("http://insecure.example.com/bob.png".into());
    match bob.save().await {
        Err(Error::Validation(e)) => println!("  refused before sending: {e}"),
        other => panic!("expected a validation error, got {other:?}"),
    }
    bob.avatar = Some("https://img.example.com/bob.png".into());
    bob.save().await?;
    println!(
        "  with an https avatar it saves: version {:?}",
        bob.version()
    );

    // 6. The same new user arrives on two instances at once: one upsert each.
    println!("\n6. Five instances see the first request of carol at once.");
    let mut tasks = Vec::new();
    for i in 0..5 {
        let users = users.clone();
        tasks.push(tokio::spawn(async move {
            users
                .upsert(doc! { "email": "carol@example.com" })
                .set(doc! { "tags": [format!("seen-by-{i}")] })
                .set_on_insert(doc! { "_id": ObjectId::new(), "status": "NEW", "avatar": null })
                .await
        }));
    }
    for task in tasks {
        task.await.expect("task")?;
    }
    let carols = users.count(doc! { "email": "carol@example.com" }).await?;
    println!("  documents for carol: {carols}");

    // 7. Four workers poll one queue: each job runs exactly once.
    println!("\n7. Four workers claim 20 jobs.");
    let jobs = Job::model(&db);
    jobs.sync_indexes().await?;
    for id in 0..20 {
        jobs.create(Job {
            id,
            state: "pending".into(),
            worker: None,
        })
        .await?;
    }
    let mut workers = Vec::new();
    for w in 0..4 {
        let jobs = jobs.clone();
        workers.push(tokio::spawn(async move {
            let mut mine = 0;
            // The guarded field is in the filter: only one claim can match.
            while let Some(_job) = jobs
                .claim(
                    doc! { "state": "pending" },
                    doc! { "$set": { "state": "running", "worker": w } },
                )
                .await?
            {
                mine += 1;
            }
            Ok::<_, Error>(mine)
        }));
    }
    let mut per_worker = Vec::new();
    for worker in workers {
        per_worker.push(worker.await.expect("task")?);
    }
    let total: i32 = per_worker.iter().sum();
    println!(
        "  claimed per worker {per_worker:?}, {total} in all, {} left",
        jobs.count(doc! { "state": "pending" }).await?
    );

    let _ = db.drop().await;
    client.shutdown().await;
    println!("\ndone");
    Ok(())
}
