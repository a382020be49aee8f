//! The commands the referential rules send, each inside the session of
//! the rule's transaction and through the command log: the mark on the
//! targets a write refers to, and the reads and writes of a delete.

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Bson, Document};
use mongodb::{ClientSession, Collection, Database};

use crate::codec::version_key::REFS;
use crate::error::{from_driver, Result};
use crate::wire::command_log::Command;
use crate::wire::session::BoxFuture;

/// The most ids one command names: `$in` lists stay far below the 16 MiB
/// command limit and the server's comfortable size.
pub(crate) const CHUNK: usize = 10_000;

fn collection(db: &Database, name: &str) -> Collection<Document> {
    db.collection(name)
}

/// `$inc: {__refs: 1}` on every document of `ids` (distinct) in
/// `target`: the write a delete of any of them conflicts with. Returns the
/// ids no document has (none when every one matched).
pub(crate) fn mark<'a>(
    db: &'a Database,
    target: &'a str,
    ids: &'a [Bson],
    session: &'a mut ClientSession,
) -> BoxFuture<'a, Result<Vec<Bson>>> {
    Box::pin(async move {
        let mut missing = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let filter = doc! { "_id": { "$in": chunk } };
            let update = doc! { "$inc": { REFS: 1_i64 } };
            let log = Command::new(target, "update")
                .filter(&filter)
                .update(&update);
            let coll = collection(db, target);
            let action = coll.update_many(filter, update).session(&mut *session);
            let done = log.send(action).await.map_err(|e| from_driver(e, target))?;
            if done.matched_count < chunk.len() as u64 {
                let found =
                    ids_matching(db, target, doc! { "_id": { "$in": chunk } }, session).await?;
                let found: std::collections::HashSet<super::Ref<()>> =
                    found.into_iter().map(super::Ref::from_bson).collect();
                missing.extend(
                    chunk
                        .iter()
                        .filter(|id| !found.contains(&super::Ref::from_bson((*id).clone())))
                        .cloned(),
                );
            }
        }
        Ok(missing)
    })
}

/// The `_id`s of the documents of `name` matching `filter`.
pub(crate) fn ids_matching<'a>(
    db: &'a Database,
    name: &'a str,
    filter: Document,
    session: &'a mut ClientSession,
) -> BoxFuture<'a, Result<Vec<Bson>>> {
    Box::pin(async move {
        let log = Command::new(name, "find").filter(&filter);
        let coll = collection(db, name);
        let action = coll.find(filter).projection(doc! { "_id": 1 });
        let cursor = log.send(async { action.session(&mut *session).await });
        let mut cursor = cursor.await.map_err(|e| from_driver(e, name))?;
        let mut ids = Vec::new();
        let mut docs = cursor.stream(session);
        while let Some(mut found) = docs.try_next().await.map_err(|e| from_driver(e, name))? {
            ids.push(found.remove("_id").unwrap_or(Bson::Null));
        }
        Ok(ids)
    })
}

/// How many documents of `name` match `filter`, and the `_id` and `path`
/// value of one of them; `None` when none does.
pub(crate) fn count_one<'a>(
    db: &'a Database,
    name: &'a str,
    filter: Document,
    path: &'a str,
    session: &'a mut ClientSession,
) -> BoxFuture<'a, Result<Option<(u64, Bson, Bson)>>> {
    Box::pin(async move {
        let pipeline = vec![
            doc! { "$match": filter },
            doc! { "$group": {
                "_id": null,
                "n": { "$sum": 1_i64 },
                "one": { "$first": "$_id" },
                "at": { "$first": format!("${path}") },
            } },
        ];
        let log = Command::new(name, "aggregate").update(pipeline.as_slice());
        let coll = collection(db, name);
        let action = coll.aggregate(pipeline.clone());
        let cursor = log.send(async { action.session(&mut *session).await });
        let mut cursor = cursor.await.map_err(|e| from_driver(e, name))?;
        let Some(mut group) = cursor
            .next(session)
            .await
            .transpose()
            .map_err(|e| from_driver(e, name))?
        else {
            return Ok(None);
        };
        let n = group
            .get("n")
            .and_then(crate::codec::integer)
            .unwrap_or_default();
        let one = group.remove("one").unwrap_or(Bson::Null);
        let at = group.remove("at").unwrap_or(Bson::Null);
        Ok((n > 0).then_some((n as u64, one, at)))
    })
}

/// Deletes the documents of `ids` in `name`; how many were deleted.
pub(crate) fn delete_ids<'a>(
    db: &'a Database,
    name: &'a str,
    ids: &'a [Bson],
    session: &'a mut ClientSession,
) -> BoxFuture<'a, Result<u64>> {
    Box::pin(async move {
        let mut deleted = 0;
        for chunk in ids.chunks(CHUNK) {
            let filter = doc! { "_id": { "$in": chunk } };
            let log = Command::new(name, "delete").filter(&filter);
            let coll = collection(db, name);
            let action = coll.delete_many(filter).session(&mut *session);
            deleted += log
                .send(action)
                .await
                .map_err(|e| from_driver(e, name))?
                .deleted_count;
        }
        Ok(deleted)
    })
}
