//! Importing rows: [`Model::insert_many`] inserts them in one bulk write,
//! each validated first and given its `ObjectId` before anything is sent,
//! and tells each row its own outcome. A row that fails validation is not
//! sent; a row whose email is already taken is refused by the unique
//! index; the others are stored.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "members", timestamps)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// Missing on import: odm generates it before sending.
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    pub id: Option<ObjectId>,
    #[odm(unique)]
    pub email: String,
    #[odm(min_len = 1)]
    pub name: String,
    pub created_at: Option<odm::bson::DateTime>,
    pub updated_at: Option<odm::bson::DateTime>,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    pub rows: usize,
    pub inserted: usize,
    pub invalid: usize,
    pub taken: usize,
    pub stored: u64,
}

fn member(email: &str, name: &str) -> Member {
    Member {
        id: None,
        email: email.into(),
        name: name.into(),
        created_at: None,
        updated_at: None,
    }
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let members = Member::model(db);
    members.sync_indexes().await?;
    members.create(member("ann@example.com", "Ann")).await?;

    let rows = vec![
        member("bob@example.com", "Bob"),
        member("cy@example.com", ""), // fails validation: not sent
        member("ann@example.com", "Ann B."), // the email is taken
        member("dee@example.com", "Dee"),
    ];
    let count = rows.len();
    let (mut inserted, mut invalid, mut taken) = (0, 0, 0);
    for outcome in members.insert_many(rows).await? {
        match outcome {
            Ok(doc) => {
                inserted += 1;
                println!("inserted {} as {}", doc.email, doc.id.expect("generated"));
            }
            Err(Error::Validation(e)) => {
                invalid += 1;
                println!("not sent: {e}");
            }
            Err(Error::DuplicateKey(e)) => {
                taken += 1;
                println!("refused: {e}");
            }
            Err(e) => return Err(e),
        }
    }
    let stored = members.count(doc! {}).await?;
    println!(
        "{count} rows: {inserted} inserted, {invalid} invalid, {taken} taken; {stored} stored"
    );
    Ok(Outcome {
        rows: count,
        inserted,
        invalid,
        taken,
        stored,
    })
}
