//! Hooks: code a model runs around its own saves and deletes.
//!
//! A `Profile` keeps a `slug` derived from its display name, and each save
//! leaves an audit record. `before_save` computes the slug: the change goes
//! out in the same single write as the user's own, versioned as usual, and
//! the validators see it. It writes the audit record through the save's
//! session, so inside a transaction both land or neither does.
//! `before_delete` refuses to delete a profile that is still public.

use odm::prelude::*;
use odm::{HookContext, Hooks};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "profiles", hooks)]
pub struct Profile {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    #[odm(min_len = 1)]
    pub slug: String,
    pub public: bool,
}

impl Hooks for Profile {
    async fn before_save(&mut self, ctx: &mut HookContext<'_>) -> odm::Result<()> {
        self.slug = slug(&self.name);
        let audit = ctx.database().collection::<odm::bson::Document>("audit");
        let record = doc! { "profile": self.id, "slug": &self.slug, "new": ctx.is_new() };
        match ctx.session() {
            Some(s) => audit.insert_one(record).session(s).await?,
            None => audit.insert_one(record).await?,
        };
        Ok(())
    }

    async fn before_delete(&self, _ctx: &mut HookContext<'_>) -> odm::Result<()> {
        if self.public {
            return Err(Error::hook("make the profile private before deleting it"));
        }
        Ok(())
    }
}

fn slug(name: &str) -> String {
    let words: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.join("-")
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    pub slugs: Vec<String>,
    /// The version after the rename: one write, one bump.
    pub version_after_rename: Option<i64>,
    pub audit_records: u64,
    /// A name without a letter gives an empty slug: the validators refuse it.
    pub empty_slug_refused: bool,
    pub delete_refused: String,
    pub deleted: bool,
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let profiles = Profile::model(db);
    let mut p = profiles
        .create(Profile {
            id: ObjectId::new(),
            name: "Ada Lovelace".into(),
            slug: String::new(),
            public: true,
        })
        .await?;
    println!(
        "created: name {:?}, slug {:?} (set by before_save)",
        p.name, p.slug
    );
    let mut slugs = vec![p.slug.clone()];

    // A rename: the hook's slug goes out with it, in one updateOne.
    // (`changes()` shows the save before its hooks run: here only `name`.)
    p.name = "Ada, Countess of Lovelace".into();
    p.save().await?;
    let stored = profiles
        .collection()
        .find_one(doc! { "_id": p.id })
        .await?
        .expect("stored");
    println!("renamed: stored {stored}");
    slugs.push(stored.get_str("slug").unwrap_or_default().to_string());
    let version_after_rename = p.version();

    // The hook runs before the validators: an empty slug never reaches the
    // store. The hook's own audit write did land: a hook's side effects are
    // not undone when the save fails, unless they share its transaction.
    p.name = "!!!".into();
    let empty_slug_refused = matches!(p.save().await, Err(Error::Validation(_)));
    println!("a name without letters: refused by validation = {empty_slug_refused}");
    p.reload().await?;

    let delete_refused = match p.delete().await {
        Err(e) => e.to_string(),
        Ok(()) => String::new(),
    };
    println!("delete while public: {delete_refused}");
    p.public = false;
    p.save().await?;
    p.delete().await?;
    let deleted = profiles.count(doc! {}).await? == 0;
    let audit_records = db
        .collection::<odm::bson::Document>("audit")
        .count_documents(doc! { "profile": p.id })
        .await?;
    println!("deleted: {deleted}; audit records written by the hook: {audit_records}");
    Ok(Outcome {
        slugs,
        version_after_rename,
        audit_records,
        empty_slug_refused,
        delete_refused,
        deleted,
    })
}
