//! The one read a batch may need after its write, inside its session.

use mongodb::bson::Document as BsonDocument;
use mongodb::ClientSession;

use crate::model::Document;
use crate::model::Model;
use crate::wire::command_log::Command;

/// The documents of `model` matching `filter`, with `projection` (whole
/// when `None`); from the primary after a `fenced` batch, as every read of
/// a fence.
pub(crate) async fn read<T: Document>(
    model: &Model<T>,
    filter: BsonDocument,
    projection: Option<BsonDocument>,
    fenced: bool,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<Vec<BsonDocument>> {
    use futures_util::TryStreamExt;
    let log = Command::new(model.name(), "find").filter(&filter);
    let primary;
    let collection = match fenced {
        true => {
            primary = crate::wire::fence::collection(model.collection())
                .clone_with_type::<BsonDocument>();
            &primary
        }
        false => model.collection(),
    };
    let find = collection.find(filter);
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

impl crate::wire::command_log::Answer for Found {
    fn brief(&self) -> String {
        format!("found {}", self.0.len())
    }
}
