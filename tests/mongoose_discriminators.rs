//! One collection shared with Mongoose's discriminators (issue 33): with
//! `#[serde(tag = "__t")]` (Mongoose's discriminator key) and Mongoose's
//! model names as the variant names, odm reads and writes the documents
//! of a Mongoose discriminator collection, and Mongoose reads odm's.
//!
//! The default tests store documents exactly as Mongoose stores them and
//! send Mongoose's writes raw (as `mongoose_interop.rs` does), so no Node
//! runtime is needed. `ODM_MONGOOSE=1` also runs Mongoose itself on the
//! same collection (`tests/mongoose_support/discriminators.mjs`; it needs
//! Node.js 20 or later and npm, and installs Mongoose as
//! `benches/mongoose` pins it).

use crate::common;

use common::stored;
use odm::bson::{doc, Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "events")]
#[serde(tag = "__t")]
enum Event {
    Click(Click),
    Purchase(Purchase),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Click {
    #[serde(rename = "_id")]
    id: ObjectId,
    element: String,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Purchase {
    #[serde(rename = "_id")]
    id: ObjectId,
    cents: i64,
    #[serde(default)]
    tags: Vec<String>,
}

/// A Click as `Click.create({element, tags})` of Mongoose 9 stores it
/// (`ODM_MONGOOSE=1` prints its insert): `_id`, the kind in `__t`, the
/// fields, `__v` last, an Int32.
fn mongoose_click(id: ObjectId) -> BsonDocument {
    doc! { "_id": id, "__t": "Click", "element": "#m", "tags": ["m"], "__v": 0 }
}

#[tokio::test]
async fn odm_reads_and_saves_a_mongoose_discriminator_document() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let id = ObjectId::new();
    events
        .collection()
        .insert_one(mongoose_click(id))
        .await
        .unwrap();
    let mut doc = events.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(
        *doc,
        Event::Click(Click {
            id,
            element: "#m".into(),
            tags: vec!["m".into()]
        })
    );
    assert_eq!(doc.version(), Some(0));
    assert_eq!(events.variant::<Click>().count(doc! {}).await.unwrap(), 1);
    assert_eq!(
        events.variant::<Purchase>().count(doc! {}).await.unwrap(),
        0
    );
    // A change of kind: what Mongoose's discriminator models read back.
    *doc = Event::Purchase(Purchase {
        id,
        cents: 5,
        tags: vec!["m".into()],
    });
    doc.save().await.unwrap();
    assert_eq!(
        stored(&events, id).await,
        doc! { "_id": id, "__t": "Purchase", "tags": ["m"], "__v": 1, "cents": 5_i64 }
    );
    t.finish().await;
}

#[tokio::test]
async fn odm_writes_what_mongoose_reads_and_mongoose_writes_keep_odm_s() {
    let t = TestDb::new().await;
    let events = Event::model(&t.db);
    let id = ObjectId::new();
    let mut doc = events
        .variant::<Click>()
        .create(Click {
            id,
            element: "#odm".into(),
            tags: vec![],
        })
        .await
        .unwrap();
    // What Mongoose's `Click.findOne()` and `Event.findOne()` read: the
    // kind in `__t`, Mongoose's key, and the version as Mongoose keeps it.
    assert_eq!(
        stored(&events, id).await,
        doc! { "__t": "Click", "_id": id, "element": "#odm", "tags": [], "__v": 0 }
    );
    // Mongoose's `doc.tags.push(x); doc.save()` on the Click (loaded by
    // `Event.findById`), sent raw as Mongoose sends it: `{_id}`, a `$push`
    // and `$inc`.
    let r = events
        .collection()
        .update_one(
            doc! { "_id": id },
            doc! { "$push": { "tags": { "$each": ["mongoose"] } }, "$inc": { "__v": 1 } },
        )
        .await
        .unwrap();
    assert_eq!(r.matched_count, 1);
    // odm's stale copy still saves an in-place edit (no version check in
    // the default mode), keeping Mongoose's push.
    if let Event::Click(c) = &mut *doc {
        c.element = "#both".into();
    }
    doc.save().await.unwrap();
    let s = stored(&events, id).await;
    assert_eq!(s.get_array("tags").unwrap(), &vec![Bson::from("mongoose")]);
    assert_eq!(s.get_str("element").unwrap(), "#both");
    t.finish().await;
}

/// Mongoose itself on the same collection (`ODM_MONGOOSE=1`).
mod with_mongoose {
    use std::path::Path;
    use std::process::Command;

    use super::*;

    fn enabled() -> bool {
        std::env::var("ODM_MONGOOSE").is_ok_and(|v| !v.is_empty() && v != "0")
    }

    /// Installs Mongoose where `benches/mongoose` pins it, once.
    fn install() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/mongoose");
        if dir.join("node_modules/mongoose").is_dir() {
            return;
        }
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm (Node.js >= 20) for ODM_MONGOOSE=1");
        assert!(status.success(), "npm ci in benches/mongoose failed");
    }

    /// Runs one step of the Mongoose script; its JSON answer.
    fn mongoose(db: &str, step: &[&str]) -> serde_json::Value {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mongoose_support/discriminators.mjs");
        let out = Command::new("node")
            .arg(script)
            .arg(odm_testing::uri())
            .arg(db)
            .args(step)
            .output()
            .expect("node");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "mongoose {step:?} failed:\n{stderr}");
        eprintln!("mongoose {step:?} sent:\n{stderr}");
        serde_json::from_slice(&out.stdout).expect("one JSON answer")
    }

    #[tokio::test]
    async fn mongoose_and_odm_read_and_write_each_other_s_events() {
        if !enabled() {
            eprintln!("skipped: set ODM_MONGOOSE=1 to run Mongoose itself");
            return;
        }
        install();
        let t = TestDb::new().await;
        let events = Event::model(&t.db);
        let db = t.db.name().to_string();
        let odm_click = ObjectId::new();
        events
            .create(Event::Click(Click {
                id: odm_click,
                element: "#odm".into(),
                tags: vec![],
            }))
            .await
            .unwrap();
        let odm_purchase = ObjectId::new();
        events
            .variant::<Purchase>()
            .create(Purchase {
                id: odm_purchase,
                cents: 100,
                tags: vec!["odm".into()],
            })
            .await
            .unwrap();

        // Mongoose reads odm's documents as its discriminator models.
        let read = mongoose(&db, &["read"]);
        let text = read.to_string();
        eprintln!("mongoose read: {text}");
        assert!(
            text.contains(&format!(
                "\"id\":\"{}\",\"model\":\"Click\"",
                odm_click.to_hex()
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "\"id\":\"{}\",\"model\":\"Purchase\"",
                odm_purchase.to_hex()
            )),
            "{text}"
        );
        assert!(
            text.contains("\"clicks\":1") && text.contains("\"purchases\":1"),
            "{text}"
        );

        // odm reads Mongoose's, and saves them.
        let written = mongoose(&db, &["write"]);
        let click_id = ObjectId::parse_str(written["click"].as_str().unwrap()).unwrap();
        let purchase_id = ObjectId::parse_str(written["purchase"].as_str().unwrap()).unwrap();
        let mut click = events.find_by_id(click_id).await.unwrap().unwrap();
        assert!(
            matches!(&*click, Event::Click(c) if c.element == "#from-mongoose" && c.tags == ["m"])
        );
        let purchase = events
            .variant::<Purchase>()
            .find_by_id(purchase_id)
            .await
            .unwrap()
            .unwrap();
        assert!(matches!(&*purchase, Event::Purchase(p) if p.cents == 250));
        // A change of kind by odm: Mongoose then loads a Purchase.
        *click = Event::Purchase(Purchase {
            id: click_id,
            cents: 9,
            tags: vec!["m".into()],
        });
        click.save().await.unwrap();
        // Mongoose edits odm's documents; odm's copies see the edits.
        let edited = mongoose(&db, &["edit", &click_id.to_hex()]);
        assert_eq!(edited["model"], "Purchase", "{edited}");
        mongoose(&db, &["edit", &odm_click.to_hex()]);
        let reloaded = events.find_by_id(click_id).await.unwrap().unwrap();
        assert_eq!(
            *reloaded,
            Event::Purchase(Purchase {
                id: click_id,
                cents: 10,
                tags: vec!["m".into(), "mongoose".into()]
            })
        );
        let s = stored(&events, click_id).await;
        assert!(s.get("element").is_none(), "no field of the old kind: {s}");
        let edited = events.find_by_id(odm_click).await.unwrap().unwrap();
        assert!(matches!(&*edited, Event::Click(c) if c.element == "#edited-by-mongoose"));
        let read = mongoose(&db, &["read"]).to_string();
        assert!(
            read.contains("\"clicks\":1") && read.contains("\"purchases\":3"),
            "{read}"
        );
        t.finish().await;
    }
}
