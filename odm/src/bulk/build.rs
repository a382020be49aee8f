//! What a batch sends, built without a server, for the benches that weigh
//! odm's CPU per `Doc` of a batch against one save's build. Not public
//! API.

use futures_util::FutureExt;
use mongodb::options::{UpdateModifications, WriteModel};

use super::commands;
use super::path::{BulkPath, Limits};
use super::prepare::{self, prepare, Step};
use super::send;
use crate::model::doc::Doc;
use crate::model::Document;
use crate::model::Model;

/// Makes every `Doc` of `docs` ready as [`Model::bulk_save`] does (hooks,
/// validators, the plan, the filter and update of each statement) and
/// builds what goes to the driver the way `path` says: the write models
/// of one `bulkWrite` (`BulkWrite`), or the encoded `insert` / `update`
/// commands at MongoDB's default limits (`Commands`). `Auto` builds the
/// write models, then, as when the driver finds the server too old for
/// them, each update's filter and update again, and panics unless they
/// are the ones the models took. Sends and commits nothing; returns the
/// number of statements, and panics if a `Doc` is refused or a hook waits
/// on I/O.
#[doc(hidden)]
pub fn build<T: Document>(model: &Model<T>, docs: &mut [Doc<T>], path: BulkPath) -> usize {
    let mut steps: Vec<Step> = docs
        .iter_mut()
        .map(|doc| {
            prepare(doc, None, None, None)
                .now_or_never()
                .expect("a hook that waits on nothing")
        })
        .collect();
    if let Some(Step::Done(Err(e))) = steps.iter().find(|s| matches!(s, Step::Done(Err(_)))) {
        panic!("a Doc refused: {e}");
    }
    match path {
        BulkPath::Commands => {
            let loaded = send::Loaded::of(docs);
            let statements = send::command_statements::<T>(&steps, &loaded, None);
            let limits = Limits {
                max_batch: 100_000,
                max_bson: 16 * 1024 * 1024,
            };
            let built = commands::build(model.name(), &statements, limits, false);
            built.iter().map(|b| b.members.len()).sum()
        }
        BulkPath::BulkWrite => send::write_models(model, &mut steps)
            .expect("odm's documents serialize")
            .len(),
        BulkPath::Auto => {
            let models = send::write_models(model, &mut steps).expect("odm's documents serialize");
            prepare::refill(docs, &mut steps, None);
            same_statements(&models, &steps);
            models.len()
        }
    }
}

/// Panics unless every update step holds again the filter and update
/// that went into its write model.
fn same_statements(models: &[WriteModel], steps: &[Step]) {
    let mut sent = models.iter().filter_map(|m| match m {
        WriteModel::UpdateOne(u) => Some(u),
        _ => None,
    });
    for step in steps {
        if let Step::Update { filter, update, .. } = step {
            let model = sent.next().expect("a write model per update");
            assert_eq!(
                Some(&model.filter),
                filter.as_ref(),
                "the filter built again"
            );
            match &model.update {
                UpdateModifications::Document(sent) => {
                    assert_eq!(Some(sent), update.as_ref(), "the update built again")
                }
                _ => panic!("an update document"),
            }
        }
    }
    assert!(sent.next().is_none(), "no write model left over");
}
