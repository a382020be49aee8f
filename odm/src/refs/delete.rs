//! A delete of targets under the referential rules: inside one
//! transaction, each rule pointing at the target model is applied to the
//! documents referring to the ids being deleted (refuse rules first), a
//! cascade applies the referring model's own rules to what it deletes,
//! and the caller then deletes the targets themselves. The delete of a
//! target is a write to it, which conflicts with the mark of any write
//! adding a reference to it (see `guard`).

use std::collections::HashSet;

use mongodb::bson::{doc, Bson};
use mongodb::{ClientSession, Database};

use super::linked::{rules_to, Delete, Linked, OnDelete, Referrer};
use super::reference::Ref;
use super::send;
use crate::error::{Error, ReferencedError, Result};
use crate::wire::session::BoxFuture;

/// How deep cascades may go (a chain of models, or of documents of one
/// model referring to each other): past it the delete fails.
const MAX_DEPTH: usize = 64;

/// The documents one delete has reached: the targets, then every
/// document a cascade deletes, by collection. A cascade stops at a
/// document already reached (a cycle), and a refusal does not count a
/// referring document the same delete removes.
#[derive(Default)]
pub(crate) struct Reached {
    seen: HashSet<(&'static str, Ref<()>)>,
    depth: usize,
}

impl Reached {
    /// Records `ids` of `collection`; returns those not reached before.
    fn add(&mut self, collection: &'static str, ids: &[Bson]) -> Vec<Bson> {
        ids.iter()
            .filter(|id| {
                self.seen
                    .insert((collection, Ref::from_bson((*id).clone())))
            })
            .cloned()
            .collect()
    }

    /// The ids of `collection` reached so far.
    fn of(&self, collection: &str) -> Vec<Bson> {
        self.seen
            .iter()
            .filter(|(c, _)| *c == collection)
            .map(|(_, r)| r.id().clone())
            .collect()
    }
}

/// Applies every rule pointing at `T` to a delete of `ids` (documents of
/// `T`), inside `session`'s transaction: refusals first, then cascades,
/// clears and pulls. The caller deletes the targets.
pub(crate) fn on_delete<'a, T: Linked>(
    db: &'a Database,
    ids: &'a [Bson],
    session: &'a mut ClientSession,
    reached: &'a mut Reached,
) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let target = T::__odm_meta().collection;
        reached.add(target, ids);
        if ids.is_empty() {
            return Ok(());
        }
        // Collected first: no iterator adapter is held across an await.
        let mut rules: Vec<(&Referrer, usize, bool)> = Vec::new();
        for referrer in T::REFERRERS {
            for (rule, spec) in rules_to::<T>(referrer.rules) {
                rules.push((referrer, rule, spec.on_delete == OnDelete::Refuse));
            }
        }
        for refusing in [true, false] {
            for &(referrer, rule, refuse) in &rules {
                {
                    if refuse != refusing {
                        continue;
                    }
                    let delete = Delete {
                        db,
                        rule,
                        target,
                        ids,
                        session: &mut *session,
                        reached: &mut *reached,
                    };
                    (referrer.apply)(delete).await?;
                }
            }
        }
        Ok(())
    })
}

/// One rule of the referring model `A` applied to a delete of targets.
pub(crate) fn apply<'a, A: Linked>(d: Delete<'a>) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let Delete {
            db,
            rule,
            target,
            ids,
            session,
            reached,
        } = d;
        let spec = &A::RULES[rule];
        let name = A::__odm_meta().collection;
        let path = spec.path;
        let referring = doc! { path: { "$in": ids } };
        match spec.on_delete {
            OnDelete::Refuse => {
                // A referring document this same delete removes does not
                // count.
                let mut filter = referring;
                let leaving = reached.of(name);
                if !leaving.is_empty() {
                    filter.insert("_id", doc! { "$nin": leaving });
                }
                match send::count_one(db, name, filter, path, session).await? {
                    None => Ok(()),
                    Some((count, referrer, at)) => {
                        Err(Error::Referenced(Box::new(ReferencedError {
                            collection: target.to_string(),
                            id: referred(&at, ids),
                            referrers: name.to_string(),
                            path: path.to_string(),
                            count,
                            referrer,
                        })))
                    }
                }
            }
            OnDelete::Cascade => {
                let found = send::ids_matching(db, name, referring, session).await?;
                let fresh = reached.add(name, &found);
                if fresh.is_empty() {
                    return Ok(());
                }
                reached.depth += 1;
                if reached.depth > MAX_DEPTH {
                    return Err(Error::application(format!(
                        "a cascading delete reached more than {MAX_DEPTH} levels of references (at \"{name}\")"
                    )));
                }
                on_delete::<A>(db, &fresh, session, reached).await?;
                reached.depth -= 1;
                send::delete_ids(db, name, &fresh, session).await?;
                Ok(())
            }
            OnDelete::Clear => {
                let clear = doc! { "$set": { path: Bson::Null } };
                let model = A::model(db);
                model.update_many(referring, clear).session(session).await?;
                Ok(())
            }
            OnDelete::Pull => {
                let pull = doc! { "$pull": { path: { "$in": ids } } };
                let model = A::model(db);
                model.update_many(referring, pull).session(session).await?;
                Ok(())
            }
        }
    })
}

/// Which of `ids` the referring document's field (`at`: one id or an
/// array of them) holds, as the delete names it.
fn referred(at: &Bson, ids: &[Bson]) -> Bson {
    let held: HashSet<Ref<()>> = match at {
        Bson::Array(items) => items.iter().cloned().map(Ref::from_bson).collect(),
        one => HashSet::from([Ref::from_bson(one.clone())]),
    };
    ids.iter()
        .find(|id| held.contains(&Ref::from_bson((*id).clone())))
        .or(ids.first())
        .cloned()
        .unwrap_or(Bson::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refused_id_is_the_one_the_referrer_holds() {
        let ids = [Bson::Int64(1), Bson::Int64(2)];
        assert_eq!(referred(&Bson::Int32(2), &ids), Bson::Int64(2));
        let list = Bson::Array(vec![Bson::Int64(9), Bson::Int64(2), Bson::Int64(1)]);
        assert_eq!(referred(&list, &ids), Bson::Int64(1));
        assert_eq!(referred(&Bson::Null, &ids), Bson::Int64(1));
    }

    #[test]
    fn a_reached_document_is_reached_once() {
        let mut reached = Reached::default();
        let a = [Bson::Int64(1), Bson::Int64(2)];
        assert_eq!(reached.add("posts", &a), a.to_vec());
        assert_eq!(
            reached.add("posts", &[Bson::Int32(2), Bson::Int64(3)]),
            [Bson::Int64(3)]
        );
        assert_eq!(reached.add("users", &[Bson::Int64(1)]), [Bson::Int64(1)]);
        let mut posts = reached.of("posts");
        posts.sort_by_key(|b| b.as_i64());
        assert_eq!(posts, [Bson::Int64(1), Bson::Int64(2), Bson::Int64(3)]);
    }
}
