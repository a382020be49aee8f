//! An enum model's features work as a struct's do: validators (the
//! enum's, a newtype variant's `nested` and `validate = path`, a struct
//! variant's field rules), `timestamps`, `hooks`, `optimistic_concurrency`,
//! ids generated on insert, and indexes per kind (partial on the kind key,
//! unique within the kind), created by `sync_indexes`.

use std::sync::atomic::{AtomicUsize, Ordering};

use odm::bson::{DateTime, Document as BsonDocument};
use odm::prelude::*;
use odm::{HookContext, Hooks};
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(
    collection = "payments",
    optimistic_concurrency,
    timestamps,
    hooks,
    validate = Self::rules
)]
#[serde(
    tag = "method",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum Payment {
    #[odm(
        nested,
        validate = Card::expiry,
        index(keys(reference = 1), unique),
        index(keys(last4 = 1, cents = -1), name = "card_digits")
    )]
    Card(Card),
    BankTransfer {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[odm(min_len = 10, index)]
        iban: String,
        #[odm(unique)]
        reference: String,
        cents: i64,
        created_at: Option<DateTime>,
        updated_at: Option<DateTime>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields, odm::Validate)]
#[serde(rename_all = "camelCase")]
struct Card {
    #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
    id: Option<ObjectId>,
    reference: String,
    last4: String,
    #[odm(min = 1)]
    cents: i64,
    expiry_year: i32,
    created_at: Option<DateTime>,
    updated_at: Option<DateTime>,
}

impl Card {
    fn expiry(&self) -> Result<(), ValidationError> {
        if self.expiry_year < 2000 {
            return Err(ValidationError::new("expiryYear", "must be 2000 or later"));
        }
        Ok(())
    }
}

/// How many `before_save` hooks ran (the tests run apart, one counter
/// each would need a field; the count only grows).
static BEFORE_SAVE: AtomicUsize = AtomicUsize::new(0);

impl Payment {
    fn rules(&self) -> Result<(), ValidationError> {
        let cents = match self {
            Payment::Card(c) => c.cents,
            Payment::BankTransfer { cents, .. } => *cents,
        };
        if cents > 1_000_000 {
            return Err(ValidationError::new("cents", "at most 1,000,000"));
        }
        Ok(())
    }
}

impl Hooks for Payment {
    async fn before_save(&mut self, _ctx: &mut HookContext<'_>) -> odm::Result<()> {
        BEFORE_SAVE.fetch_add(1, Ordering::SeqCst);
        if let Payment::Card(c) = self {
            c.reference = c.reference.to_uppercase();
        }
        Ok(())
    }
}

fn card(reference: &str, last4: &str) -> Card {
    Card {
        id: None,
        reference: reference.into(),
        last4: last4.into(),
        cents: 100,
        expiry_year: 2030,
        created_at: None,
        updated_at: None,
    }
}

fn transfer(reference: &str) -> Payment {
    Payment::BankTransfer {
        id: ObjectId::new(),
        iban: "DE0012345678".into(),
        reference: reference.into(),
        cents: 250,
        created_at: None,
        updated_at: None,
    }
}

async fn stored(payments: &Model<Payment>, id: &odm::bson::Bson) -> BsonDocument {
    payments
        .collection()
        .find_one(doc! { "_id": id.clone() })
        .await
        .unwrap()
        .expect("stored")
}

#[tokio::test]
async fn every_kind_of_validator_runs_and_nothing_is_sent() {
    let t = TestDb::new().await;
    let payments = Payment::model(&t.db);
    let mut bad = card("r1", "4242");
    bad.cents = 0; // Card's own rule (nested)
    bad.expiry_year = 1999; // the variant's validator
    let e = payments.create(Payment::Card(bad)).await.unwrap_err();
    let Error::Validation(errors) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(errors.paths(), vec!["cents", "expiryYear"], "{e}");
    let mut big = card("r2", "4242");
    big.cents = 2_000_000; // the enum's validator
    let e = payments.create(Payment::Card(big)).await.unwrap_err();
    assert!(e.to_string().contains("cents: at most 1,000,000"), "{e}");
    let mut short = transfer("r3");
    if let Payment::BankTransfer { iban, .. } = &mut short {
        *iban = "short".into();
    }
    let e = payments.create(short).await.unwrap_err();
    let Error::Validation(errors) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(errors.paths(), vec!["iban"], "{e}");
    assert_eq!(payments.count(doc! {}).await.unwrap(), 0);
    t.finish().await;
}

#[tokio::test]
async fn timestamps_hooks_and_generated_ids_in_every_kind() {
    let t = TestDb::new().await;
    let payments = Payment::model(&t.db);
    let hooks_before = BEFORE_SAVE.load(Ordering::SeqCst);
    // A newtype variant without an id gets one, written through serde.
    let mut doc = payments
        .create(Payment::Card(card("ref-a", "4242")))
        .await
        .unwrap();
    assert!(BEFORE_SAVE.load(Ordering::SeqCst) > hooks_before);
    let id = doc.id().unwrap();
    let Payment::Card(c) = &*doc else {
        unreachable!()
    };
    assert_eq!(c.id.map(odm::bson::Bson::ObjectId), Some(id.clone()));
    assert_eq!(c.reference, "REF-A", "before_save ran");
    let (created, updated) = (c.created_at.unwrap(), c.updated_at.unwrap());
    assert_eq!(created, updated);
    let s = stored(&payments, &id).await;
    assert_eq!(s.get_datetime("createdAt").unwrap(), &created);
    assert_eq!(s.get_str("method").unwrap(), "card");
    assert_eq!(s.get_str("reference").unwrap(), "REF-A");

    // A change within the kind stamps updatedAt, in the store and in memory.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    if let Payment::Card(c) = &mut *doc {
        c.cents = 300;
    }
    doc.save().await.unwrap();
    assert_eq!(doc.version(), Some(1), "optimistic_concurrency bumps");
    let Payment::Card(c) = &*doc else {
        unreachable!()
    };
    let stamped = c.updated_at.unwrap();
    assert!(stamped > updated);
    assert_eq!(
        stored(&payments, &id)
            .await
            .get_datetime("updatedAt")
            .unwrap(),
        &stamped
    );

    // Into a struct variant: its own fields take the times.
    let Payment::Card(old) = (*doc).clone() else {
        unreachable!()
    };
    *doc = Payment::BankTransfer {
        id: old.id.unwrap(),
        iban: "DE0012345678".into(),
        reference: "ref-a".into(),
        cents: 300,
        created_at: old.created_at,
        updated_at: old.updated_at,
    };
    doc.save().await.unwrap();
    let loaded = payments.find_by_id(id.clone()).await.unwrap().unwrap();
    assert_eq!(*loaded, *doc, "stored == memory after a change of kind");
    let s = stored(&payments, &id).await;
    assert_eq!(s.get_str("method").unwrap(), "bank_transfer");
    assert!(
        s.get("last4").is_none() && s.get("expiryYear").is_none(),
        "{s}"
    );
    assert_eq!(s.get_i32("__v").unwrap(), 2);
    t.finish().await;
}

#[tokio::test]
async fn indexes_are_per_kind_and_unique_within_their_kind() {
    let t = TestDb::new().await;
    let payments = Payment::model(&t.db);
    let declared = payments.indexes();
    assert_eq!(
        declared,
        vec![
            doc! {
                "key": { "reference": 1 }, "name": "reference_1_card", "unique": true,
                "partialFilterExpression": { "method": "card" },
            },
            doc! {
                "key": { "last4": 1, "cents": -1 }, "name": "card_digits",
                "partialFilterExpression": { "method": "card" },
            },
            doc! {
                "key": { "iban": 1 }, "name": "iban_1_bank_transfer",
                "partialFilterExpression": { "method": "bank_transfer" },
            },
            doc! {
                "key": { "reference": 1 }, "name": "reference_1_bank_transfer", "unique": true,
                "partialFilterExpression": { "method": "bank_transfer" },
            },
        ]
    );
    let report = payments.sync_indexes().await.unwrap();
    assert_eq!(report.created.len(), 4, "{report:?}");
    // One reference per kind: a card and a transfer may share it.
    payments
        .create(Payment::Card(card("same", "1111")))
        .await
        .unwrap();
    payments.create(transfer("SAME")).await.unwrap();
    let e = payments
        .create(Payment::Card(card("same", "2222")))
        .await
        .unwrap_err();
    let Error::DuplicateKey(d) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(d.index.as_deref(), Some("reference_1_card"), "{e}");
    let e = payments.create(transfer("SAME")).await.unwrap_err();
    assert!(matches!(e, Error::DuplicateKey(_)), "{e:?}");
    assert_eq!(payments.count(doc! {}).await.unwrap(), 2);
    assert!(payments.sync_indexes().await.unwrap().created.is_empty());
    t.finish().await;
}
