//! Small edits of update documents (`{$set: {..}, $inc: {..}}`).

use mongodb::bson::{Bson, Document};

/// `path` is `field` or lies under it (`field.x`).
pub(crate) fn same_or_under(path: &str, field: &str) -> bool {
    path == field || (path.starts_with(field) && path.as_bytes().get(field.len()) == Some(&b'.'))
}

/// Some operator of `update` writes `field`, a field under it, or a field
/// above it.
pub(crate) fn touches(update: &Document, field: &str) -> bool {
    update.iter().any(|(op, body)| match body {
        Bson::Document(body) if op.starts_with('$') => body
            .keys()
            .any(|path| same_or_under(path, field) || same_or_under(field, path)),
        _ => false,
    })
}

/// Every path the operators of `update` write (`{$set: {..}, $inc:
/// {..}}`): each key, and for `$rename` also each new name (`{$rename:
/// {old: new}}` writes `new`). An entry that is not an operator with a
/// document is left out, for the server to refuse.
pub(crate) fn written_paths(update: &Document) -> impl Iterator<Item = &str> {
    update
        .iter()
        .filter(|(op, _)| op.starts_with('$'))
        .filter_map(|(op, body)| match body {
            Bson::Document(body) => Some((op == "$rename", body)),
            _ => None,
        })
        .flat_map(|(rename, body)| {
            let renamed_to = body
                .values()
                .filter(move |_| rename)
                .filter_map(Bson::as_str);
            body.keys().map(String::as_str).chain(renamed_to)
        })
}

/// Adds `key: value` to the `op` operator of `update`, creating it when
/// absent. (An `op` entry that is not a document is left for the server to
/// reject.)
pub(crate) fn add(update: &mut Document, op: &str, key: &str, value: Bson) {
    match update.get_mut(op) {
        Some(Bson::Document(body)) => {
            body.insert(key, value);
        }
        Some(_) => {}
        None => {
            let mut body = Document::new();
            body.insert(key, value);
            update.insert(op, body);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::doc;

    #[test]
    fn touches_same_under_and_above() {
        let u = doc! { "$set": { "state": "x", "meta.updatedAt": 1 }, "$inc": { "n": 1 } };
        assert!(touches(&u, "state"));
        assert!(touches(&u, "meta"));
        assert!(touches(&u, "n"));
        assert!(!touches(&u, "stat"));
        assert!(!touches(&u, "states"));
        assert!(touches(&doc! { "$set": { "a": { "b": 1 } } }, "a.b"));
    }

    #[test]
    fn add_merges_into_an_operator() {
        let mut u = doc! { "$inc": { "n": 1 } };
        add(&mut u, "$inc", "__v", Bson::Int32(1));
        add(&mut u, "$set", "updatedAt", Bson::Int32(2));
        assert_eq!(
            u,
            doc! { "$inc": { "n": 1, "__v": 1 }, "$set": { "updatedAt": 2 } }
        );
    }
}
