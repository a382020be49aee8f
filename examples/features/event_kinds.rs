//! Enum models: one `events` collection holding three kinds of event.
//!
//! `Event` is an internally tagged serde enum (`#[serde(tag = "kind")]`):
//! each document stores its kind beside its own fields. A click and a
//! checkout are newtype variants of their own structs; a purchase is a
//! struct variant. `events.variant::<Click>()` is the handle of one kind:
//! every filter it sends holds `kind: "Click"`. A checkout that gets paid
//! becomes a purchase through an ordinary save: one write leaves exactly
//! the purchase's fields, checks and bumps the version, and a stale copy of
//! the checkout can no longer write into the purchase. A unique index of
//! the purchase kind allows one purchase per order, while checkouts of the
//! same order may repeat.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events")]
#[serde(tag = "kind")]
pub enum Event {
    Click(Click),
    Checkout(Checkout),
    Purchase {
        #[serde(rename = "_id")]
        id: ObjectId,
        #[odm(unique)]
        order: String,
        #[odm(min = 1)]
        cents: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Click {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub element: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Fields)]
pub struct Checkout {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub order: String,
    pub items: Vec<String>,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// Clicks on `#buy`, counted through the click kind's handle.
    pub buy_clicks: u64,
    /// Documents of each kind, in `Click`, `Checkout`, `Purchase` order.
    pub per_kind: [u64; 3],
    /// The paid checkout as stored: a purchase, its version bumped.
    pub purchase: odm::bson::Document,
    /// The stale copy of the checkout was refused.
    pub stale_refused: bool,
    /// A second purchase of the same order was refused by the index.
    pub duplicate_refused: bool,
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let events = Event::model(db);
    // The purchase kind's unique index: partial on `kind: "Purchase"`.
    events.sync_indexes().await?;

    // Each kind's handle stores its kind.
    let clicks = events.variant::<Click>();
    for element in ["#buy", "#buy", "#help"] {
        clicks
            .create(Click {
                id: ObjectId::new(),
                element: element.into(),
            })
            .await?;
    }
    let mut checkout = events
        .variant::<Checkout>()
        .create(Checkout {
            id: ObjectId::new(),
            order: "A-1".into(),
            items: vec!["book".into()],
        })
        .await?;
    let id = checkout.id()?;
    // Another worker holds a copy of the same checkout.
    let mut stale = events.find_by_id(id.clone()).await?.expect("stored");

    // A typed filter of the kind's own fields; the kind is added.
    let buy_clicks = clicks.count(Click::fields().element().eq("#buy")).await?;

    // Paid: the checkout becomes a purchase, in one checked write.
    let Event::Checkout(paid) = (*checkout).clone() else {
        unreachable!("created as a checkout")
    };
    *checkout = Event::Purchase {
        id: paid.id,
        order: paid.order,
        cents: 1_250,
    };
    checkout.save().await?;
    let purchase = events
        .collection()
        .find_one(doc! { "_id": id.clone() })
        .await?
        .expect("stored");

    // The stale copy still thinks it is a checkout: its edit is refused.
    if let Event::Checkout(c) = &mut *stale {
        c.items.push("pen".into());
    }
    let stale_refused = matches!(stale.save().await, Err(Error::Version(_)));

    // One purchase per order: the purchase kind's unique index.
    let again = events
        .create(Event::Purchase {
            id: ObjectId::new(),
            order: "A-1".into(),
            cents: 99,
        })
        .await;
    let duplicate_refused = matches!(again, Err(Error::DuplicateKey(_)));

    let per_kind = [
        clicks.count(doc! {}).await?,
        events.variant::<Checkout>().count(doc! {}).await?,
        events.count(doc! { "kind": "Purchase" }).await?,
    ];
    println!("clicks on #buy: {buy_clicks}; per kind: {per_kind:?}");
    println!("the paid checkout: {purchase}");
    println!(
        "stale checkout refused: {stale_refused}; second purchase refused: {duplicate_refused}"
    );
    Ok(Outcome {
        buy_clicks,
        per_kind,
        purchase,
        stale_refused,
        duplicate_refused,
    })
}
