//! The code `#[derive(Document)]` generates must compile cleanly under the
//! strictest lints a user may turn on, for every attribute and for generic
//! structs. The tests also check (without a server) that each model's
//! attributes took effect: a derive that compiled but dropped an attribute
//! would fail here.
#![deny(warnings, unused_qualifications, clippy::all)]

use mongodb::bson::{doc, rawdoc};
use mongodb::Client;
use odm::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Container: `collection`, plain `optimistic_concurrency`, serde's
/// `rename_all`, a `#[serde(skip)]` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "people", optimistic_concurrency)]
#[serde(rename_all = "camelCase")]
pub struct Person {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub display_name: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(skip)]
    pub cached: Option<u32>,
}

/// `version_key`, `optimistic_concurrency(include(..))`, `skip_versioning`
/// on a `Vec` and on an `Option<Vec>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(version_key = "rev", optimistic_concurrency(include(title, body)))]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: i64,
    pub title: String,
    pub body: String,
    #[odm(skip_versioning)]
    pub likes: Vec<String>,
    #[odm(skip_versioning)]
    pub flags: Option<Vec<String>>,
}

/// `optimistic_concurrency(exclude(..))` naming a renamed field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(exclude(last_seen)))]
pub struct Account {
    #[serde(rename = "_id")]
    pub id: i64,
    pub email: String,
    #[serde(rename = "seen")]
    pub last_seen: i64,
}

/// `versioning = false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events", versioning = false)]
pub struct Event {
    #[serde(rename = "_id")]
    pub id: i64,
    pub kinds: Vec<String>,
}

/// A generic model with a where clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
pub struct Wrapper<T>
where
    T: Clone,
{
    #[serde(rename = "_id")]
    pub id: i64,
    pub value: T,
    #[odm(skip_versioning)]
    pub history: Vec<T>,
}

/// Generic with an inline bound, a default type parameter and a const
/// parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "pairs")]
pub struct Pair<K: Clone, V = String, const N: usize = 2> {
    #[serde(rename = "_id")]
    pub id: K,
    pub values: Vec<V>,
}

/// `#[derive(Fields)]` and nested listed paths: through a struct, a map
/// key, a wildcard and a flattened field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub first_name: String,
    pub seen_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(optimistic_concurrency(exclude(profile.seen_at, prefs."k".seen_at, prefs.*, extra.seen_at)))]
pub struct Member {
    #[serde(rename = "_id")]
    pub id: i64,
    pub profile: Profile,
    pub prefs: std::collections::HashMap<String, Profile>,
    #[serde(flatten)]
    pub extra: Profile,
}

/// An enum model (issue 33): every attribute it takes, on the enum, on
/// a newtype variant and on a struct variant's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "activities",
    optimistic_concurrency,
    timestamps,
    validate = Self::check
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Activity {
    #[odm(nested, validate = Visit::check, index(keys(page = 1), unique))]
    Visit(Visit),
    SignUp {
        #[serde(rename = "_id")]
        id: i64,
        #[odm(min_len = 3, unique, partial(verified = true))]
        email: String,
        verified: bool,
        #[odm(skip_versioning)]
        notes: Vec<String>,
        #[serde(rename = "createdAt")]
        created_at: Option<odm::bson::DateTime>,
        #[serde(rename = "updatedAt")]
        updated_at: Option<odm::bson::DateTime>,
    },
}

impl Activity {
    fn check(&self) -> Result<(), ValidationError> {
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields, odm::Validate)]
pub struct Visit {
    #[serde(rename = "_id")]
    pub id: i64,
    #[odm(min_len = 1)]
    pub page: String,
    #[serde(rename = "createdAt")]
    pub created_at: Option<odm::bson::DateTime>,
    #[serde(rename = "updatedAt")]
    pub updated_at: Option<odm::bson::DateTime>,
}

impl Visit {
    fn check(&self) -> Result<(), ValidationError> {
        Ok(())
    }
}

/// Referential rules: a target listing its referrer, a referrer with a
/// rule of each kind.
#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "lint_owners", referenced_by(Pet))]
pub struct Owner {
    #[serde(rename = "_id")]
    pub id: ObjectId,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(collection = "lint_pets", referenced_by(Pet))]
pub struct Pet {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[odm(reference(on_delete = refuse), index)]
    pub owner: Ref<Owner>,
    #[odm(reference(on_delete = clear))]
    pub sitter: Option<Ref<Owner>>,
    #[odm(reference(on_delete = pull))]
    pub friends: Vec<Ref<Pet>>,
    #[odm(reference(on_delete = cascade))]
    pub mother: Option<Ref<Pet>>,
}

async fn client() -> Client {
    // Creating a client connects to nothing until it is used.
    Client::with_uri_str("mongodb://127.0.0.1:9/")
        .await
        .expect("a valid URI")
}

/// A model in `db`, whatever its generics: the trait bound alone must do.
fn model_of<T: Document>(db: &mongodb::Database) -> Model<T> {
    T::model(db)
}

fn is_document<T: Document + DeserializeOwned>() {}

#[tokio::test]
async fn every_attribute_takes_effect() {
    let client = client().await;
    let db = client.database("lint");

    // collection names: declared, or snake_case + "s".
    assert_eq!(model_of::<Person>(&db).name(), "people");
    assert_eq!(model_of::<Post>(&db).name(), "posts");
    assert_eq!(model_of::<Account>(&db).name(), "accounts");
    assert_eq!(model_of::<Event>(&db).name(), "events");
    assert_eq!(model_of::<Wrapper<String>>(&db).name(), "wrappers");
    assert_eq!(model_of::<Pair<i64>>(&db).name(), "pairs");
    is_document::<Wrapper<Vec<u8>>>();
    is_document::<Pair<String, i32, 4>>();

    // optimistic_concurrency + rename_all: a scalar change is checked and
    // bumped, under the camelCase name.
    let id = ObjectId::new();
    let stored = rawdoc! { "_id": id, "displayName": "Ada", "tags": [], "__v": 2 };
    let mut person = Person::model(&db).hydrate(&stored).unwrap();
    assert_eq!(person.cached, None);
    person.display_name = "Ada L.".into();
    assert_eq!(
        person.changes(),
        Some((
            doc! { "_id": id, "__v": 2 },
            doc! { "$set": { "displayName": "Ada L." }, "$inc": { "__v": 1 } },
        ))
    );

    // version_key = "rev", include(title, body), skip_versioning.
    let stored =
        rawdoc! { "_id": 1_i64, "title": "T", "body": "B", "likes": [], "flags": null, "rev": 0 };
    let mut post = Post::model(&db).hydrate(&stored).unwrap();
    assert_eq!(post.version(), Some(0));
    post.likes.push("ann".into());
    post.flags = Some(vec!["hot".into()]);
    assert_eq!(
        post.changes(),
        Some((
            doc! { "_id": 1_i64 },
            doc! { "$set": { "flags": ["hot"] }, "$push": { "likes": { "$each": ["ann"] } } },
        ))
    );
    post.title = "T2".into();
    let (filter, update) = post.changes().unwrap();
    assert_eq!(filter, doc! { "_id": 1_i64, "rev": 0 });
    assert_eq!(update.get_document("$inc").unwrap(), &doc! { "rev": 1 });

    // exclude(last_seen) maps to the BSON name `seen`.
    let stored = rawdoc! { "_id": 1_i64, "email": "a@b.c", "seen": 5_i64, "__v": 0 };
    let mut account = Account::model(&db).hydrate(&stored).unwrap();
    account.last_seen = 6;
    assert_eq!(
        account.changes(),
        Some((doc! { "_id": 1_i64 }, doc! { "$set": { "seen": 6_i64 } }))
    );
    account.email = "c@d.e".into();
    assert_eq!(
        account.changes().unwrap().0,
        doc! { "_id": 1_i64, "__v": 0 }
    );

    // versioning = false: an array push carries no version at all.
    let stored = rawdoc! { "_id": 1_i64, "kinds": ["a"] };
    let mut event = Event::model(&db).hydrate(&stored).unwrap();
    assert_eq!(event.version(), None);
    event.kinds.push("b".into());
    assert_eq!(
        event.changes(),
        Some((
            doc! { "_id": 1_i64 },
            doc! { "$push": { "kinds": { "$each": ["b"] } } },
        ))
    );

    // The generic model: skip_versioning on `Vec<T>`.
    let stored = rawdoc! { "_id": 1_i64, "value": "x", "history": [], "__v": 0 };
    let mut wrapper = Wrapper::<String>::model(&db).hydrate(&stored).unwrap();
    wrapper.history.push("x".into());
    wrapper.value = "y".into();
    assert_eq!(
        wrapper.changes(),
        Some((
            doc! { "_id": 1_i64 },
            doc! { "$set": { "value": "y" }, "$push": { "history": { "$each": ["x"] } } },
        ))
    );

    // Typed paths, and an exclude through a nested path.
    assert_eq!(Member::fields().profile().seen_at(), "profile.seenAt");
    assert_eq!(Member::fields().extra().first_name(), "firstName");
    let stored = rawdoc! {
        "_id": 1_i64,
        "profile": { "firstName": "a", "seenAt": 1_i64 },
        "prefs": {},
        "firstName": "b",
        "seenAt": 1_i64,
        "__v": 0,
    };
    let mut member = Member::model(&db).hydrate(&stored).unwrap();
    member.profile.seen_at = 2;
    member.extra.seen_at = 2;
    assert!(!member.changes().unwrap().0.contains_key("__v"));
    member.profile.first_name = "c".into();
    assert!(member.changes().unwrap().0.contains_key("__v"));

    // The enum model: its kinds, its per-kind indexes, a kind's handle.
    let activities = model_of::<Activity>(&db);
    assert_eq!(activities.name(), "activities");
    assert_eq!(activities.variant::<Visit>().name(), "visit");
    assert_eq!(
        activities.indexes(),
        vec![
            doc! {
                "key": { "page": 1 }, "name": "page_1_visit", "unique": true,
                "partialFilterExpression": { "type": "visit" },
            },
            doc! {
                "key": { "email": 1 }, "name": "email_1_sign_up", "unique": true,
                "partialFilterExpression": { "$and": [{ "type": "sign_up" }, { "verified": true }] },
            },
        ]
    );
    let stored = rawdoc! {
        "type": "sign_up", "_id": 1_i64, "email": "a@b.c", "verified": false, "notes": [],
        "createdAt": odm::bson::DateTime::from_millis(0),
        "updatedAt": odm::bson::DateTime::from_millis(0), "__v": 0,
    };
    let mut activity = activities.hydrate(&stored).unwrap();
    if let Activity::SignUp { verified, .. } = &mut *activity {
        *verified = true;
    }
    let (filter, _) = activity.changes().unwrap();
    assert_eq!(filter, doc! { "_id": 1_i64, "type": "sign_up", "__v": 0 });
    is_document::<Activity>();

    // Referential rules: every rule recorded, each with its target.
    use odm::refs::{Linked, OnDelete};
    let rules: Vec<(&str, OnDelete)> = Pet::RULES.iter().map(|r| (r.path, r.on_delete)).collect();
    assert_eq!(
        rules,
        [
            ("owner", OnDelete::Refuse),
            ("sitter", OnDelete::Clear),
            ("friends", OnDelete::Pull),
            ("mother", OnDelete::Cascade),
        ]
    );
    assert_eq!((Pet::RULES[0].target_meta)().collection, "lint_owners");
    assert_eq!((Pet::RULES[3].target_meta)().collection, "lint_pets");
    assert_eq!((Owner::REFERRERS.len(), Pet::REFERRERS.len()), (1, 1));
    let stored = rawdoc! { "_id": ObjectId::new(), "owner": ObjectId::new(), "sitter": null, "friends": [], "mother": null, "__v": 0 };
    let pet = model_of::<Pet>(&db).hydrate(&stored).unwrap();
    let owner = stored.get_object_id("owner").unwrap();
    assert_eq!(pet.owner, Ref::new(owner));

    client.shutdown().await;
}
