//! Stamped rows of the `shapes` bench: a save's own CPU (the plan, the
//! request and the commit of a landed update,
//! `odm::__private::save_landed`; no round trip) of one scalar of M and L,
//! beside the same save of the same document under `#[odm(timestamps)]`
//! ([`StampedArticle`]), reached through `Doc::field_mut` (`landed_reach`)
//! and through `DerefMut` (`landed_deref`, compared with the copy of the
//! value once a `Doc` keeps one). A stamp is one more field written: the
//! ratio `stamped / plain` (`RATIO SHAPE ROW_stamped/ROW R` lines) shows
//! what it costs, at two sizes.
//!
//! Before timing, each row checks three saves: the update sets the
//! counter (and `updatedAt` when stamped) and bumps the version, the
//! benches' one check of a save (`apply::check_save`: the filter's `_id`
//! and version, the update applied to the stored document gives the
//! committed value, its stamp included) passes, and after the commit
//! nothing is pending.

use std::hint::black_box;

use odm::bson::raw::RawDocumentBuf;
use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::update::apply;

use super::apply::check_save;
use super::harness::{measure, Plan, Row};
use super::{stored, Article, StampedArticle};

/// The rows of one shape, `value` being its document.
pub fn bench_stamped(
    plan: &Plan,
    out: &mut Vec<Row>,
    shape: &'static str,
    models: (&Model<Article>, &Model<StampedArticle>),
    value: &Article,
) {
    let raw = &stored(value);
    let (plain, stamped) = models;
    let a = Article::fields();
    let s = StampedArticle::fields();
    let rows = [
        ("landed_reach", "landed_reach_stamped"),
        ("landed_deref", "landed_deref_stamped"),
    ];
    for (i, (plain_row, stamped_row)) in rows.into_iter().enumerate() {
        let reach = i == 0;
        let mut doc = plain.hydrate(raw).unwrap();
        let set = |doc: &mut Doc<Article>, n| match reach {
            true => *doc.field_mut(a.counter()) = n,
            false => doc.counter = n,
        };
        check(plain_row, raw, &mut doc, set, |_| None);
        measure(plan, out, shape, plain_row, |i| {
            set(&mut doc, counter(i));
            black_box(odm::__private::save_landed(&mut doc));
        });
        let mut doc = stamped.hydrate(raw).unwrap();
        let set = |doc: &mut Doc<StampedArticle>, n| match reach {
            true => *doc.field_mut(s.counter()) = n,
            false => doc.counter = n,
        };
        check(stamped_row, raw, &mut doc, set, |d| Some(d.updated_at));
        measure(plan, out, shape, stamped_row, |i| {
            set(&mut doc, counter(i));
            black_box(odm::__private::save_landed(&mut doc));
        });
    }
}

/// A counter value for op `i`, never the loaded 0.
fn counter(i: u64) -> i32 {
    (i % 1_000_000) as i32 + 1
}

/// Checks three landed saves of `doc` (loaded from `raw`), each setting
/// the counter through `set`: see the module docs. `stamp` reads the
/// value's `updatedAt` (`None`: the model has no `timestamps`).
fn check<T, S, U>(row: &str, raw: &RawDocumentBuf, doc: &mut Doc<T>, set: S, stamp: U)
where
    T: Document + PartialEq + std::fmt::Debug,
    S: Fn(&mut Doc<T>, i32),
    U: Fn(&T) -> Option<odm::bson::DateTime>,
{
    let mut stored = raw.clone();
    for n in 1..=3 {
        set(doc, n);
        let (filter, mut update) = doc.changes().unwrap_or_else(|| panic!("{row}: a change"));
        let keys: Vec<&str> = update
            .get_document("$set")
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let expected: &[&str] = match stamp(doc) {
            Some(_) => &["counter", "updatedAt"],
            None => &["counter"],
        };
        assert_eq!(keys, expected, "{row}: {update}");
        assert_eq!(update.get_document("$inc").unwrap(), &doc! { "__v": 1 });
        assert_eq!(odm::__private::save_landed(doc), 2, "{row}: $set and $inc");
        assert!(
            doc.changes().is_none(),
            "{row}: nothing pending after the commit"
        );
        if let Some(at) = stamp(doc) {
            // The commit took a later stamp than `changes()` showed.
            let set = update.get_document_mut("$set").unwrap();
            set.insert("updatedAt", Bson::DateTime(at));
        }
        check_save(row, &stored, Some((filter, update.clone())), &**doc);
        let before = BsonDocument::try_from(stored.as_ref()).unwrap();
        let after = apply(&before, &update).unwrap_or_else(|e| panic!("{row}: {e}"));
        stored = RawDocumentBuf::from_document(&after).unwrap();
    }
}

/// The `RATIO` lines of the stamped rows.
pub fn print_stamped(rows: &[Row]) {
    let find = |shape: &str, row: &str| {
        rows.iter()
            .find(|r| r.shape == shape && r.row == row)
            .map(Row::ns)
    };
    for shape in ["M", "L"] {
        for row in ["landed_reach", "landed_deref"] {
            let stamped = format!("{row}_stamped");
            if let (Some(a), Some(b)) = (find(shape, &stamped), find(shape, row)) {
                println!("RATIO {shape} {stamped}/{row} {:.2}", a / b);
            }
        }
    }
}
