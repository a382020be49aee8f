//! The floor rows of the `shapes` bench: what the same work costs with
//! `bson` alone, and the client-side cost of the bare driver's
//! `update_one`, so odm's rows read as "odm / floor".
//!
//! - `floor_ser`: `bson::to_vec(&value)`, the value to BSON bytes.
//! - `floor_ser_raw`: `bson::to_raw_document_buf(&value)` (what a user of the
//!   raw-document API calls).
//! - `floor_de`: `bson::from_slice::<T>(stored bytes)`.
//! - `floor_request`: the owned `(filter, update)` pair the driver's
//!   `update_one` takes, built by the user's two `doc!`s and dropped: what
//!   any caller of the driver pays before the driver starts.
//! - `floor_update_one`: one `update_one(filter, update)` of the same
//!   `(filter, update)` the `save_build_scalar` row computes, as the driver
//!   (3.9) prepares it before any I/O: the user's two `doc!`s, then what
//!   its `Update::build` does (each `Document` to a `RawDocumentBuf`, the
//!   statement `{q, u, multi}` in an `updates` array, `ordered`), then what
//!   it adds to every command (`$db`, the implicit session's `lsid`) and
//!   the OP_MSG bytes it writes (16-byte header, flags, one kind-0
//!   section). The driver's operation code is private, so this replays its
//!   steps with the same `bson` calls; what it leaves out (server
//!   selection, the connection checkout, the session pool, the command
//!   monitor, reading the reply) only adds to the driver's cost, so the
//!   floor is, if anything, low.

use odm::bson::raw::{RawArrayBuf, RawDocumentBuf};
use odm::bson::spec::BinarySubtype;
use odm::bson::{doc, Binary, Bson, Document as BsonDocument};

/// The driver's `update_one` of `filter` / `update` up to the bytes it
/// writes, for collection `coll` of database `db`.
pub fn update_one_bytes(
    db: &str,
    coll: &str,
    filter: &BsonDocument,
    update: &BsonDocument,
    lsid: &Binary,
) -> Vec<u8> {
    // Update::build.
    let mut body = RawDocumentBuf::new();
    body.append("update", coll);
    let mut statement = RawDocumentBuf::new();
    statement.append("q", RawDocumentBuf::from_document(filter).expect("filter"));
    statement.append("u", RawDocumentBuf::from_document(update).expect("update"));
    statement.append("multi", false);
    let mut updates = RawArrayBuf::new();
    updates.push(statement);
    body.append("updates", updates);
    body.append("ordered", true);
    // What every command gets: the database and the implicit session.
    body.append("$db", db);
    let mut session = RawDocumentBuf::new();
    session.append("id", lsid.clone());
    body.append("lsid", session);
    // OP_MSG: header (length, request id, response to, op code 2013),
    // flag bits, then section kind 0 with the command.
    let doc = body.as_bytes();
    let len = 16 + 4 + 1 + doc.len();
    let mut message = Vec::with_capacity(len);
    message.extend_from_slice(&(len as i32).to_le_bytes());
    message.extend_from_slice(&1i32.to_le_bytes());
    message.extend_from_slice(&0i32.to_le_bytes());
    message.extend_from_slice(&2013i32.to_le_bytes());
    message.extend_from_slice(&0u32.to_le_bytes());
    message.push(0);
    message.extend_from_slice(doc);
    message
}

/// A session id as the driver makes one (a UUID, binary subtype 4).
pub fn lsid() -> Binary {
    Binary {
        subtype: BinarySubtype::Uuid,
        bytes: (0u8..16).collect(),
    }
}

/// The `(filter, update)` a bare-driver user writes for the counter change
/// that `save_build_scalar` computes: `_id` and version checked, `$set` of
/// the counter, `$inc` of the version.
pub fn counter_request(id: &Bson, version: i32, n: i32) -> (BsonDocument, BsonDocument) {
    (
        doc! { "_id": id.clone(), "__v": version },
        doc! { "$set": { "counter": n }, "$inc": { "__v": 1 } },
    )
}
