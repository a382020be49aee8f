//! A document whose upgrade in a batch matched nothing (another writer
//! wrote it after the batch read it): read again and, while it is still
//! older, upgraded again from what is stored now, alone.

use mongodb::bson::{doc, Bson};
use mongodb::ClientSession;

use super::MigrationReport;
use crate::error::{Error, Result};
use crate::model::other_versions::{self, Stance};
use crate::model::{Document, Model};
use crate::wire::session::send;

/// What became of one document read again.
#[derive(Debug)]
pub(crate) enum Settled {
    Upgraded,
    /// Another writer upgraded it.
    Current,
    /// A newer instance wrote it.
    Newer,
    /// Deleted meanwhile.
    Gone,
    Failed(Error),
}

/// Reads the document `id` again and upgrades it if it is still older,
/// as often as other writers get ahead of the upgrade (up to
/// [`other_versions::ATTEMPTS`]).
pub(crate) async fn settle<T: Document>(
    model: &Model<T>,
    id: &Bson,
    mut session: Option<&mut ClientSession>,
) -> Result<Settled> {
    let mut conflict = None;
    for _ in 0..other_versions::ATTEMPTS {
        let filter = doc! { "_id": id.clone() };
        let Some(stored) = model.find_raw(filter, session.as_deref_mut()).await? else {
            return Ok(Settled::Gone);
        };
        match other_versions::stance::<T>(&stored) {
            Stance::Current => return Ok(Settled::Current),
            Stance::Newer(_) => return Ok(Settled::Newer),
            Stance::Older => {}
        }
        let mut doc = match model.track(stored) {
            Ok(doc) => doc,
            Err(e) => return Ok(Settled::Failed(e)),
        };
        match send(doc.save(), session.as_deref_mut()).await {
            Ok(()) => return Ok(Settled::Upgraded),
            Err(e @ (Error::Version(_) | Error::NotFound(_))) => conflict = Some(e),
            Err(e) => return Ok(Settled::Failed(e)),
        }
    }
    Ok(Settled::Failed(conflict.unwrap_or_else(|| {
        crate::plan::request::not_found(model.name(), doc! { "_id": id.clone() })
    })))
}

/// Counts `settled` (document `id`) in `report`.
pub(crate) fn count(report: &mut MigrationReport, id: Bson, settled: Settled) {
    match settled {
        Settled::Upgraded => report.upgraded += 1,
        Settled::Current => report.current += 1,
        Settled::Newer => report.newer += 1,
        Settled::Gone => {}
        Settled::Failed(e) => report.failed.push((id, e)),
    }
}
