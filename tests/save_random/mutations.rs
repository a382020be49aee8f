//! The changes a copy makes before a save: 1-3 random ones, and half the
//! time the copy made to count as changed only where its bytes differ (as
//! `Doc::field_mut` and `Doc::push` would have it).

use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;

use crate::save_random::checks::ser;
use crate::save_random::generator::Rng;
use crate::save_random::history::Ctx;
use crate::save_random::shapes::Shape;

/// 1-3 random changes to `value`, logged.
pub fn mutate_some<S: Shape>(cx: &mut Ctx, rng: &mut Rng, value: &mut S, who: &str) {
    let n = 1 + rng.below(3);
    let muts: Vec<String> = (0..n).map(|_| value.mutate(rng)).collect();
    cx.log(format!("{who} changes: {}", muts.join("; ")));
}

/// Half the time, makes `doc` count as changed only in the top-level
/// fields whose bytes differ from `before` (its value before the change)
/// and a few others, as `Doc::field_mut` would have it: its save then
/// skips every other field without looking.
pub fn maybe_as_if_reached<S: Shape>(
    cx: &mut Ctx,
    rng: &mut Rng,
    doc: &mut Doc<S>,
    before: &BsonDocument,
    who: &str,
) {
    if !rng.chance(50) {
        return;
    }
    let after = ser(&**doc);
    let bytes = |d: &BsonDocument, k: &str| {
        d.get(k).map(|v| {
            let mut one = BsonDocument::new();
            one.insert(k, v.clone());
            odm::bson::to_vec(&one).expect("a document serializes")
        })
    };
    let mut names: Vec<&str> = Vec::new();
    let mut appended: Vec<(&str, usize)> = Vec::new();
    for key in before.keys().chain(after.keys()) {
        let extra = rng.chance(10);
        let seen = names.contains(&key.as_str()) || appended.iter().any(|(k, _)| k == key);
        if seen || !(extra || bytes(before, key) != bytes(&after, key)) {
            continue;
        }
        // An array whose stored elements are its first ones, half the
        // time counted as only appended to (`Doc::push`).
        match appended_to(before, &after, key) {
            Some(n) if rng.chance(50) => appended.push((key, n)),
            _ => names.push(key),
        }
    }
    cx.log(format!(
        "{who} counts as reached in: {names:?}, appended to in: {appended:?}"
    ));
    odm::__private::reached_only(doc, &names, &appended);
}

/// The length of `key`'s array in `before` when `after` holds it with
/// elements added after all of them (compared as bytes), else `None`.
fn appended_to(before: &BsonDocument, after: &BsonDocument, key: &str) -> Option<usize> {
    let (Ok(old), Ok(new)) = (before.get_array(key), after.get_array(key)) else {
        return None;
    };
    let bytes = |v: &Bson| {
        let mut one = BsonDocument::new();
        one.insert("v", v.clone());
        odm::bson::to_vec(&one).expect("a document serializes")
    };
    let kept = old.iter().zip(new).all(|(a, b)| bytes(a) == bytes(b));
    (new.len() > old.len() && kept).then_some(old.len())
}
