//! The one read a batch may need after its write, inside its session.

use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;

use crate::command_log::Command;
use crate::document::Document;
use crate::model::Model;

/// The documents of `model` matching `filter`, with `projection` (whole
/// when `None`).
pub(crate) async fn read<T: Document>(
    model: &Model<T>,
    filter: BsonDocument,
    projection: Option<BsonDocument>,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<Vec<BsonDocument>> {
    use futures_util::TryStreamExt;
    let log = Command::new(model.name(), "find").filter(&filter);
    let find = model.collection().find(filter);
    let find = match projection {
        Some(p) => find.projection(p),
        None => find,
    };
    let read = async {
        let docs: Vec<BsonDocument> = match session {
            Some(s) => {
                let mut cursor = find.session(&mut *s).await?;
                cursor.stream(s).try_collect().await?
            }
            None => find.await?.try_collect().await?,
        };
        Ok::<_, mongodb::error::Error>(Found(docs))
    };
    let Found(docs) = log.send(read).await?;
    Ok(docs)
}

/// What a read found.
struct Found(Vec<BsonDocument>);

impl crate::command_log::Answer for Found {
    fn brief(&self) -> String {
        format!("found {}", self.0.len())
    }
}
