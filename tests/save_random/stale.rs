//! What a stale save may do to the other copy's writes (save-rules.md):
//! the merge per field, the rewrite guard, positional edits.

use odm::bson::{doc, Bson, Document as BsonDocument};
use odm_testing::update::mongo_eq;

use crate::save_random::compare::{join, kind_path, same, same_opt};
use crate::save_random::show::sb;

/// Does changing array `o` into `a` need a version bump under save-rules.md,
/// beyond doubt? Length changes, a sub-document whose `_id` changed at a
/// position, a primitive array in which no element kept its position, and
/// a length change of an array inside an element. (Reorders of primitives
/// that keep some position are ambiguous with in-place edits: not counted.)
fn must_bump(o: &[Bson], a: &[Bson]) -> bool {
    if o.len() != a.len() {
        return true;
    }
    if o.is_empty() {
        return false;
    }
    let with_id = |x: &Bson| matches!(x, Bson::Document(d) if d.contains_key("_id"));
    if o.iter().chain(a).all(with_id) {
        return o.iter().zip(a).any(|(x, y)| {
            !same_opt(
                x.as_document().and_then(|d| d.get("_id")),
                y.as_document().and_then(|d| d.get("_id")),
            ) || inner_bump(x, y)
        });
    }
    let primitive = |x: &Bson| !matches!(x, Bson::Document(_) | Bson::Array(_));
    if o.iter().chain(a).all(primitive) {
        return o.iter().zip(a).all(|(x, y)| !same(x, y));
    }
    o.iter().zip(a).any(|(x, y)| inner_bump(x, y))
}

/// A push or pull inside an array element.
fn inner_bump(x: &Bson, y: &Bson) -> bool {
    match (x, y) {
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() != y.len() || x.iter().zip(y).any(|(x, y)| inner_bump(x, y))
        }
        (Bson::Document(x), Bson::Document(y)) => x
            .iter()
            .any(|(k, v)| y.get(k).is_some_and(|w| inner_bump(v, w))),
        _ => false,
    }
}

fn count(xs: &[Bson], x: &Bson) -> usize {
    xs.iter().filter(|y| same(x, y)).count()
}

/// `xs` minus `ys`, as multisets (exact equality).
fn minus(xs: &[Bson], ys: &[Bson]) -> Vec<Bson> {
    let mut left: Vec<Option<&Bson>> = ys.iter().map(Some).collect();
    let mut out = Vec::new();
    for x in xs {
        match left.iter_mut().find(|y| y.is_some_and(|y| same(x, y))) {
            Some(slot) => *slot = None,
            None => out.push(x.clone()),
        }
    }
    out
}

/// What identifies an element for the server: a sub-document's `_id`, or
/// the value with numbers normalised as MongoDB compares them.
fn identity(x: &Bson) -> Bson {
    match x {
        Bson::Document(d) if d.contains_key("_id") => {
            Bson::Document(doc! { "$id": identity(d.get("_id").unwrap()) })
        }
        Bson::Int32(n) => Bson::Double(f64::from(*n)),
        Bson::Int64(n) => Bson::Double(*n as f64),
        Bson::Double(f) if *f == 0.0 => Bson::Double(0.0),
        Bson::Array(xs) => Bson::Array(identities(xs)),
        other => other.clone(),
    }
}

fn identities(xs: &[Bson]) -> Vec<Bson> {
    xs.iter().map(identity).collect()
}

/// Compares one field of the original (`o`, both copies loaded it), A's
/// saved value, B's value at its save, and the stored value after B's
/// successful save; pushes `(kind, detail)` for every loss found.
pub fn check_merge(
    path: &str,
    values: [Option<&Bson>; 4],
    missing_in_store: bool,
    a_bumped: bool,
    errs: &mut Vec<(String, String)>,
) {
    let [o, a, b, s] = values;
    let show = |x: Option<&Bson>| x.map_or("(absent)".to_string(), sb);
    let detail = || {
        format!(
            "at {path}: original {}, A saved {}, B had {}, stored {}",
            show(o),
            show(a),
            show(b),
            show(s)
        )
    };
    let a_changed = !same_opt(o, a);
    let b_changed = !same_opt(o, b);
    let kp = kind_path(path);
    match (a_changed, b_changed) {
        (false, false) => {
            if !same_opt(s, o) {
                errs.push((
                    format!("stale B: a field neither copy changed was modified [{kp}]"),
                    detail(),
                ));
            }
        }
        (true, false) => {
            if !same_opt(s, a) {
                errs.push((
                    format!("stale B: lost A's saved write to a field only A changed [{kp}]"),
                    detail(),
                ));
            }
        }
        (false, true) => {
            if !same_opt(s, b) {
                errs.push((
                    format!("stale B: B's write to a field only B changed is not stored [{kp}]"),
                    detail(),
                ));
            }
        }
        (true, true) => match (o, a, b, s) {
            (
                Some(Bson::Array(o)),
                Some(Bson::Array(a)),
                Some(Bson::Array(b)),
                Some(Bson::Array(s)),
            ) => {
                if missing_in_store && same_opt(values[2], values[3]) {
                    return; // both set the whole missing field: last writer wins
                }
                if !must_bump(o, a) || !a_bumped {
                    // A's in-place edits may be overwritten (A's saves did
                    // not bump: its net change can look like an assignment
                    // although each save edited elements in place).
                    return;
                }
                // Elements as the server tells them apart: sub-documents by
                // `_id` (B pulling one A edited is delete-wins, as in
                // Mongoose), values by MongoDB's equality (B pulling the
                // value 0 takes the 0.0 A wrote over 0: save-rules.md's
                // removal guard counts by value).
                let (o, a, b, s) = (
                    &identities(o),
                    &identities(a),
                    &identities(b),
                    &identities(s),
                );
                for x in minus(a, o) {
                    let want = count(&minus(a, o), &x);
                    if count(s, &x) < want {
                        errs.push((
                            format!("stale B: an element A added is gone [{kp}]"),
                            format!("{} (element {})", detail(), sb(&x)),
                        ));
                        return;
                    }
                }
                let b_added = minus(b, o);
                for x in minus(o, a) {
                    if count(s, &x) > count(a, &x) + count(&b_added, &x) {
                        errs.push((
                            format!("stale B: an element A removed reappeared [{kp}]"),
                            format!("{} (element {})", detail(), sb(&x)),
                        ));
                        return;
                    }
                }
            }
            (_, _, Some(Bson::Document(bd)), Some(Bson::Document(_)))
            | (_, None, Some(Bson::Document(bd)), None) => {
                if same_opt(b, s) {
                    return; // last writer wins
                }
                // Merged field by field; a parent A removed or replaced
                // counts as A removing each of its fields (and B's removals
                // under a parent A removed leave nothing).
                let empty = BsonDocument::new();
                let od = o.and_then(Bson::as_document).unwrap_or(&empty);
                let ad = a.and_then(Bson::as_document).unwrap_or(&empty);
                let sd = s.and_then(Bson::as_document).unwrap_or(&empty);
                let mut keys: Vec<&String> = od
                    .keys()
                    .chain(ad.keys())
                    .chain(bd.keys())
                    .chain(sd.keys())
                    .collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    check_merge(
                        &join(path, k),
                        [od.get(k), ad.get(k), bd.get(k), sd.get(k)],
                        false,
                        a_bumped,
                        errs,
                    );
                }
            }
            _ => {
                if !same_opt(s, b) {
                    errs.push((
                        format!("stale B: both changed a value and B's (last) write is not stored [{kp}]"),
                        detail(),
                    ));
                }
            }
        },
    }
}

/// The value at a dotted path (array elements by index).
fn at_path<'a>(doc: &'a BsonDocument, path: &str) -> Option<&'a Bson> {
    let mut parts = path.split('.');
    let mut at = doc.get(parts.next()?)?;
    for part in parts {
        at = match at {
            Bson::Document(d) => d.get(part)?,
            Bson::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// The rewrite guard (issue 21): a `$set` or `$unset` of B that replaces a
/// document or array B loaded must not land when A changed anything under
/// it: compared on the stored documents, B's load (`orig`) and just
/// before B's save (`a_doc`), by MongoDB's equality (a change of a
/// number's type alone is not seen).
pub fn check_rewrites(
    orig: &BsonDocument,
    a_doc: &BsonDocument,
    update: &BsonDocument,
    errs: &mut Vec<(String, String)>,
) {
    for (op, path) in set_paths(update) {
        let Some(o) = at_path(orig, path) else {
            continue;
        };
        if !matches!(o, Bson::Document(_) | Bson::Array(_)) {
            continue;
        }
        let a = at_path(a_doc, path);
        if !a.is_some_and(|a| mongo_eq(o, a)) {
            errs.push((
                format!(
                    "stale B: a rewrite replaced what A changed since B loaded [{}]",
                    kind_path(path)
                ),
                format!(
                    "B's {op} of {path}; B loaded {}, A saved {}",
                    sb(o),
                    a.map_or("(absent)".into(), sb)
                ),
            ));
        }
    }
}

/// The paths of an update's `$set` and `$unset`, each with its operator.
fn set_paths(update: &BsonDocument) -> impl Iterator<Item = (&'static str, &String)> {
    ["$set", "$unset"].into_iter().flat_map(move |op| {
        update
            .get_document(op)
            .into_iter()
            .flat_map(move |spec| spec.keys().map(move |path| (op, path)))
    })
}

/// The value at a dotted path, and whether the path goes through an array
/// element; `None` for the value when it is absent, `None` for the whole
/// when a parent on the way is absent or not a container.
fn walk<'a>(doc: &'a BsonDocument, path: &str) -> Option<(bool, Option<&'a Bson>)> {
    let parts: Vec<&str> = path.split('.').collect();
    let (last, parents) = parts.split_last()?;
    let mut positional = false;
    let mut holder = Holder::Doc(doc);
    for part in parents {
        let next = match holder {
            Holder::Doc(d) => d.get(*part)?,
            Holder::Array(a) => {
                positional = true;
                a.get(part.parse::<usize>().ok()?)?
            }
        };
        holder = match next {
            Bson::Document(d) => Holder::Doc(d),
            Bson::Array(a) => Holder::Array(a),
            _ => return None,
        };
    }
    Some(match holder {
        Holder::Doc(d) => (positional, d.get(*last)),
        Holder::Array(a) => (true, a.get(last.parse::<usize>().ok()?)),
    })
}

enum Holder<'a> {
    Doc(&'a BsonDocument),
    Array(&'a [Bson]),
}

/// The positional guard (issue 35): a `$set` or `$unset` of B through an
/// array element, over a value B loaded that is not a document or an
/// array (those are the rewrite guard's), must not land when A changed
/// that value since B loaded: compared on the stored documents, B's load
/// (`orig`) and just before B's save (`a_doc`), by MongoDB's equality (a
/// change of a number's type or sign alone is not seen), null and absent
/// told apart.
pub fn check_elements(
    orig: &BsonDocument,
    a_doc: &BsonDocument,
    update: &BsonDocument,
    errs: &mut Vec<(String, String)>,
) {
    for (op, path) in set_paths(update) {
        let Some((true, o)) = walk(orig, path) else {
            continue;
        };
        if matches!(o, Some(Bson::Document(_) | Bson::Array(_))) {
            continue;
        }
        let a = walk(a_doc, path).and_then(|(_, a)| a);
        let kept = match (o, a) {
            (None, None) => true,
            (Some(o), Some(a)) => mongo_eq(o, a),
            _ => false,
        };
        if !kept {
            let show = |x: Option<&Bson>| x.map_or("(absent)".into(), sb);
            errs.push((
                format!(
                    "stale B: a positional edit replaced an element A changed since B loaded [{}]",
                    kind_path(path)
                ),
                format!(
                    "B's {op} of {path}; B loaded {}, A saved {}",
                    show(o),
                    show(a)
                ),
            ));
        }
    }
}

/// Every positional `$set` / `$unset` of B through a sub-document with an
/// `_id` must land on the sub-document B loaded there: the element at that
/// position just before B's save must have the `_id` B loaded at it.
pub fn check_positional(
    orig: &BsonDocument,
    before: &BsonDocument,
    update: &BsonDocument,
    errs: &mut Vec<(String, String)>,
) {
    fn id_at(a: &[Bson], i: usize) -> Option<&Bson> {
        a.get(i)
            .and_then(Bson::as_document)
            .and_then(|d| d.get("_id"))
    }
    let (orig, before) = (Bson::Document(orig.clone()), Bson::Document(before.clone()));
    for op in ["$set", "$unset"] {
        let Ok(spec) = update.get_document(op) else {
            continue;
        };
        for path in spec.keys() {
            let parts: Vec<&str> = path.split('.').collect();
            let (mut o, mut w) = (&orig, &before);
            for (n, part) in parts.iter().enumerate() {
                let next = match (o, w) {
                    (Bson::Array(oa), Bson::Array(wa)) => {
                        let Ok(i) = part.parse::<usize>() else { break };
                        if let (Some(oid), true) = (id_at(oa, i), n + 1 < parts.len()) {
                            let wid = id_at(wa, i);
                            if !same_opt(Some(oid), wid) {
                                errs.push((
                                    format!(
                                        "stale B: a positional edit landed on another sub-document [{}]",
                                        kind_path(path)
                                    ),
                                    format!(
                                        "B wrote {path}; B loaded _id {} at {i}, the element there before B's save had _id {}",
                                        sb(oid),
                                        wid.map_or("(none)".into(), sb)
                                    ),
                                ));
                                break;
                            }
                        }
                        (oa.get(i), wa.get(i))
                    }
                    (Bson::Document(od), Bson::Document(wd)) => (od.get(*part), wd.get(*part)),
                    _ => break,
                };
                match next {
                    (Some(x), Some(y)) => (o, w) = (x, y),
                    _ => break,
                }
            }
        }
    }
}
