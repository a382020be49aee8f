use super::*;
use mongodb::bson::oid::ObjectId;

#[test]
fn version_error_displays_like_mongoose() {
    let id = ObjectId::parse_str("64b7f0c2a1b2c3d4e5f60718").unwrap();
    let e = VersionError {
        id: Bson::ObjectId(id),
        version: 3,
        modified_paths: vec!["tags".into(), "comments.1.text".into()],
    };
    assert_eq!(
        e.to_string(),
        "No matching document found for id \"64b7f0c2a1b2c3d4e5f60718\" version 3 modifiedPaths \"tags, comments.1.text\""
    );
    let e = VersionError {
        id: Bson::String("u1".into()),
        version: 0,
        modified_paths: vec![],
    };
    assert_eq!(
        e.to_string(),
        "No matching document found for id \"u1\" version 0 modifiedPaths \"\""
    );
}

#[test]
fn lock_errors_say_what_happened() {
    let lost = LeaseLostError {
        key: "email:a@b.c".into(),
        token: 4,
    };
    assert_eq!(
        lost.to_string(),
        "lease \"email:a@b.c\" (token 4) is no longer held: it expired by the database's clock and may have been taken by another holder"
    );
    let timeout = LeaseTimeoutError {
        key: "k".into(),
        waited: std::time::Duration::from_millis(1500),
    };
    assert_eq!(
        timeout.to_string(),
        "lease \"k\" is still held by another holder after waiting 1.5s"
    );
    let fenced = FencedError {
        collection: "reports".into(),
        filter: mongodb::bson::doc! { "_id": 42 },
        token: 3,
        stored: Some(5),
    };
    assert_eq!(
        fenced.to_string(),
        "fenced write with token 3 refused on collection \"reports\" for \"{ \"_id\": 42 }\": the document holds the newer token 5"
    );
}
