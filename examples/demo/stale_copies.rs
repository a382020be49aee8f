//! 4. A rule across fields ("an approved user has an avatar") checked on
//!    two stale copies: one request approves the user, another removes the
//!    avatar. Each copy is valid; the two writes together are not.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{join, pause, timed, Ctx, Measure, Scenario};

pub const SCENARIO: Scenario = Scenario {
    title: "two stale copies, cross-field rule",
    unit: "invalid users",
    per: "users",
    naive: "default save",
    odm: &["optimistic_concurrency"],
};

fn rule(status: &str, avatar: &Option<String>) -> Result<(), ValidationError> {
    if status == "APPROVED" && avatar.is_none() {
        return Err(ValidationError::new(
            "avatar",
            "required when status is APPROVED",
        ));
    }
    Ok(())
}

/// Default versioning: a scalar change is a plain `$set`, unchecked.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "profiles_naive", validate = Self::rules)]
pub struct NaiveProfile {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub round: i64,
    pub status: String,
    pub avatar: Option<String>,
}

impl NaiveProfile {
    fn rules(&self) -> Result<(), ValidationError> {
        rule(&self.status, &self.avatar)
    }
}

/// Every changing save checks and bumps the version.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "profiles", optimistic_concurrency, validate = Self::rules)]
pub struct Profile {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub round: i64,
    pub status: String,
    pub avatar: Option<String>,
}

impl Profile {
    fn rules(&self) -> Result<(), ValidationError> {
        rule(&self.status, &self.avatar)
    }
}

/// Request `i`: even ones approve the user, odd ones remove the avatar.
fn change(i: usize, status: &mut String, avatar: &mut Option<String>) {
    if i.is_multiple_of(2) {
        *status = "APPROVED".into();
    } else {
        *avatar = None;
    }
}

fn invalid(round: usize) -> odm::bson::Document {
    doc! { "round": round as i64, "status": "APPROVED", "avatar": null }
}

/// Stores `users` new profiles made by `make`; their ids, in order.
async fn seed<T: odm::Document>(
    model: &Model<T>,
    users: usize,
    make: impl Fn(ObjectId) -> T,
) -> odm::Result<Vec<ObjectId>> {
    let mut ids = Vec::with_capacity(users);
    for _ in 0..users {
        let id = ObjectId::new();
        model.create(make(id)).await?;
        ids.push(id);
    }
    Ok(ids)
}

pub async fn round(ctx: &Ctx, round: usize) -> odm::Result<Vec<Measure>> {
    let users = 2 * ctx.size.n;
    let avatar = || Some("https://img.example.com/a.png".to_string());

    let naive = NaiveProfile::model(&ctx.db);
    let ids = seed(&naive, users, |id| NaiveProfile {
        id,
        round: round as i64,
        status: "NEW".into(),
        avatar: avatar(),
    })
    .await?;
    let naive_measure = timed(async {
        let tasks = (0..2 * users)
            .map(|i| {
                let (naive, id) = (naive.clone(), ids[i / 2]);
                tokio::spawn(async move {
                    let mut user = naive.find_by_id(id).await?.expect("stored");
                    pause(i).await;
                    let user_ref = &mut *user;
                    change(i, &mut user_ref.status, &mut user_ref.avatar);
                    match user.save().await {
                        // This copy broke the rule itself: refused, fine.
                        Ok(()) | Err(Error::Validation(_)) => Ok(()),
                        Err(e) => Err(e),
                    }
                })
            })
            .collect();
        join(tasks).await?;
        Ok((naive.count(invalid(round)).await?, users as u64))
    })
    .await?;

    let profiles = Profile::model(&ctx.db);
    let ids = seed(&profiles, users, |id| Profile {
        id,
        round: round as i64,
        status: "NEW".into(),
        avatar: avatar(),
    })
    .await?;
    let odm_measure = timed(async {
        let tasks = (0..2 * users)
            .map(|i| {
                let (profiles, id) = (profiles.clone(), ids[i / 2]);
                tokio::spawn(async move {
                    let mut user = profiles.find_by_id(id).await?.expect("stored");
                    pause(i).await;
                    loop {
                        let user_ref = &mut *user;
                        change(i, &mut user_ref.status, &mut user_ref.avatar);
                        match user.save().await {
                            Ok(()) | Err(Error::Validation(_)) => return Ok(()),
                            // The other request wrote first: decide again on
                            // the fresh copy, whose rule now refuses it.
                            Err(Error::Version(_)) => user.reload().await?,
                            Err(e) => return Err(e),
                        }
                    }
                })
            })
            .collect();
        join(tasks).await?;
        Ok((profiles.count(invalid(round)).await?, users as u64))
    })
    .await?;
    Ok(vec![naive_measure, odm_measure])
}
