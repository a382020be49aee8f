//! Two stale copies under a rule across fields: "an approved user has an
//! avatar".
//!
//! Two requests load the same user. One approves it, the other removes the
//! avatar. Each copy is valid on its own, so each save passes validation;
//! by default a scalar change is a plain `$set`, so both land and the
//! stored user is approved without an avatar. With
//! `#[odm(optimistic_concurrency)]` every changing save checks and bumps
//! the version: the second save fails with [`Error::Version`], and after a
//! reload the rule sees the fresh copy and refuses the change.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency, validate = Self::rule)]
pub struct User {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub status: String,
    pub avatar: Option<String>,
}

impl User {
    fn rule(&self) -> Result<(), ValidationError> {
        if self.status == "APPROVED" && self.avatar.is_none() {
            return Err(ValidationError::new("avatar", "required when APPROVED"));
        }
        Ok(())
    }
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// The version the stale save expected, and the paths it would have written.
    pub stale_version: i64,
    pub stale_paths: Vec<String>,
    /// Whether the rule refused the change once it saw the fresh copy.
    pub refused_after_reload: bool,
    /// The stored user at the end: status, avatar, version.
    pub stored: (String, Option<String>, Option<i64>),
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let users = User::model(db);
    let avatar = Some("https://img.example.com/ann.png".to_string());
    let id = ObjectId::new();
    let status = "NEW".to_string();
    users.create(User { id, status, avatar }).await?;

    // Two requests load the same user, at version 0.
    let mut approve = users.find_by_id(id).await?.expect("stored");
    let mut remove_avatar = users.find_by_id(id).await?.expect("stored");

    approve.status = "APPROVED".into();
    approve.save().await?;
    println!(
        "request 1 approved the user: version {:?}",
        approve.version()
    );

    remove_avatar.avatar = None;
    if let Some((filter, update)) = remove_avatar.changes() {
        println!("request 2 removes the avatar: updateOne({filter}, {update})");
    }
    let (stale_version, stale_paths) = match remove_avatar.save().await {
        Err(Error::Version(e)) => {
            println!("request 2's stale copy is refused: {e}");
            (e.version, e.modified_paths)
        }
        other => panic!("expected Error::Version, got {other:?}"),
    };

    // Decide again on the fresh copy: now the rule sees the approval.
    remove_avatar.reload().await?;
    remove_avatar.avatar = None;
    let refused_after_reload = match remove_avatar.save().await {
        Err(Error::Validation(e)) => {
            println!("on the fresh copy, the rule refuses it: {e}");
            true
        }
        other => {
            println!("on the fresh copy: {other:?}");
            false
        }
    };

    let stored = users.find_by_id(id).await?.expect("stored");
    println!(
        "stored: status {}, avatar {:?}, version {:?}",
        stored.status,
        stored.avatar,
        stored.version()
    );
    Ok(Outcome {
        stale_version,
        stale_paths,
        refused_after_reload,
        stored: (
            stored.status.clone(),
            stored.avatar.clone(),
            stored.version(),
        ),
    })
}
