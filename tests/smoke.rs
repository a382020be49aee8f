use odm::prelude::*;
use odm_testing::TestDb;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "users", optimistic_concurrency)]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    email: String,
    #[serde(default)]
    tags: Vec<String>,
}

#[tokio::test]
async fn create_find_save() {
    let t = TestDb::new().await;
    let users = User::model(&t.db);
    let id = ObjectId::new();
    let mut u = users
        .create(User {
            id,
            email: "a@b.c".into(),
            tags: vec![],
        })
        .await
        .unwrap();
    assert_eq!(u.version(), Some(0));
    u.tags.push("x".into());
    u.save().await.unwrap();
    assert_eq!(u.version(), Some(1));
    let loaded = users.find_by_id(id).await.unwrap().unwrap();
    assert_eq!(loaded.tags, vec!["x".to_string()]);
    t.finish().await;
}
