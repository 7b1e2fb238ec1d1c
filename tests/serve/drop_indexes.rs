//! `dropIndexes` through the real driver: by name and by key, `_id_` and unknown names refused
//! with the server's codes, the shard key's only index kept, unsharded collections too.
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Document, doc};
use common::{admin, code_of, serve_empty};
use futures::TryStreamExt;

async fn names(client: &mongodb::Client, coll: &str) -> Vec<String> {
    let list: Vec<Document> = client
        .database("app")
        .collection::<Document>(coll)
        .list_indexes()
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap()
        .into_iter()
        .map(|m| bson::to_document(&m).unwrap())
        .collect();
    list.iter()
        .map(|d| d.get_str("name").unwrap_or_default().to_string())
        .collect()
}

async fn run(client: &mongodb::Client, cmd: Document) -> mongodb::error::Result<Document> {
    client.database("app").run_command(cmd).await
}

#[tokio::test]
async fn drop_indexes_by_name_and_key() {
    let (server, client, _) = serve_empty("8.0", true).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"k": 1}})
        .await
        .unwrap();
    run(
        &client,
        doc! {"createIndexes": "c", "indexes": [
        {"key": {"v": 1}, "name": "v_1"}, {"key": {"w": 1}, "name": "w_1"}]},
    )
    .await
    .unwrap();
    let reply = run(&client, doc! {"dropIndexes": "c", "index": "v_1"})
        .await
        .unwrap();
    assert_eq!(reply.get_i32("nIndexesWas"), Ok(4), "{reply}");
    run(&client, doc! {"dropIndexes": "c", "index": {"w": 1}})
        .await
        .unwrap();
    assert_eq!(names(&client, "c").await, ["_id_", "k_1"]);
    let err = run(&client, doc! {"dropIndexes": "c", "index": "_id_"})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 72, "{err}");
    let err = run(&client, doc! {"dropIndexes": "c", "index": "nope"})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 27, "IndexNotFound: {err}");
    assert!(
        err.to_string().contains("index not found with name [nope]"),
        "{err}"
    );
    let err = run(&client, doc! {"dropIndexes": "c", "index": {"k": 1}})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("shard key"), "{err}");

    let u = client.database("app").collection::<Document>("u");
    u.insert_one(doc! {"a": 1}).await.unwrap();
    run(
        &client,
        doc! {"createIndexes": "u", "indexes": [{"key": {"a": 1}, "name": "a_1"}]},
    )
    .await
    .unwrap();
    let reply = run(&client, doc! {"dropIndexes": "u", "index": "a_1"})
        .await
        .unwrap();
    assert_eq!(reply.get_i32("nIndexesWas"), Ok(2), "{reply}");
    assert_eq!(names(&client, "u").await, ["_id_"]);
    server.shutdown().await;
}
