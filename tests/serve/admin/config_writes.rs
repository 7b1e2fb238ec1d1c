//! Writes to the config database that servers accept, through the real driver, taking effect in
//! the simulator: `config.settings` chunksize, balancer, automerge (the mongosh helpers' writes),
//! `config.collections` noBalance / enableAutoMerge; `setAllowMigrations` blocking moves;
//! `checkMetadataConsistency`; abort and commit of a resharding in flight; other config writes
//! refused.
#![allow(clippy::unwrap_used)]

use crate::common;

use bson::{Document, doc};
use common::{admin, code_of, config_collection, serve_empty};

async fn settings(client: &mongodb::Client, id: &str) -> Option<Document> {
    client
        .database("config")
        .collection::<Document>("settings")
        .find_one(doc! {"_id": id})
        .await
        .unwrap()
}

#[tokio::test]
async fn config_settings_writes_take_effect() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    let conf = client.database("config").collection::<Document>("settings");
    conf.update_one(doc! {"_id": "chunksize"}, doc! {"$set": {"value": 1}})
        .upsert(true)
        .await
        .unwrap();
    admin(&client, doc! {"shardCollection": "app.c", "key": {"k": 1}})
        .await
        .unwrap();
    let status = admin(&client, doc! {"balancerCollectionStatus": "app.c"})
        .await
        .unwrap();
    assert_eq!(status.get_i32("chunkSize"), Ok(1), "{status}");
    assert_eq!(
        settings(&client, "chunksize")
            .await
            .unwrap()
            .get_i32("value"),
        Ok(1)
    );
    conf.update_one(doc! {"_id": "balancer"}, doc! {"$set": {"stopped": true}})
        .upsert(true)
        .await
        .unwrap();
    let b = admin(&client, doc! {"balancerStatus": 1}).await.unwrap();
    assert_eq!(b.get_str("mode"), Ok("off"), "{b}");
    conf.update_one(doc! {"_id": "automerge"}, doc! {"$set": {"enabled": false}})
        .upsert(true)
        .await
        .unwrap();
    assert_eq!(
        settings(&client, "automerge")
            .await
            .unwrap()
            .get_bool("enabled"),
        Ok(false)
    );
    conf.delete_one(doc! {"_id": "automerge"}).await.unwrap();
    assert_eq!(settings(&client, "automerge").await, None);
    let err = client
        .database("config")
        .collection::<Document>("chunks")
        .insert_one(doc! {"x": 1})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 13, "{err}");
}

#[tokio::test]
async fn collection_fields_and_allow_migrations() {
    let (_server, client, _) = serve_empty("8.0", true).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"k": 1}})
        .await
        .unwrap();
    admin(&client, doc! {"split": "app.c", "middle": {"k": 0}})
        .await
        .unwrap();
    let colls = client
        .database("config")
        .collection::<Document>("collections");
    colls
        .update_one(
            doc! {"_id": "app.c"},
            doc! {"$set": {"noBalance": true, "enableAutoMerge": false}},
        )
        .await
        .unwrap();
    let c = config_collection(&client, "app.c").await.unwrap();
    assert_eq!(c.get_bool("noBalance"), Ok(true), "{c}");
    assert_eq!(c.get_bool("enableAutoMerge"), Ok(false), "{c}");
    let err = colls
        .update_one(doc! {"_id": "app.c"}, doc! {"$set": {"key": {"x": 1}}})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 13, "{err}");
    admin(
        &client,
        doc! {"setAllowMigrations": "app.c", "allowMigrations": false},
    )
    .await
    .unwrap();
    let c = config_collection(&client, "app.c").await.unwrap();
    assert_eq!(c.get_bool("permitMigrations"), Ok(false), "{c}");
    let err = admin(
        &client,
        doc! {"moveChunk": "app.c", "find": {"k": 5}, "to": "shard0001"},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 117, "{err}");
    admin(
        &client,
        doc! {"setAllowMigrations": "app.c", "allowMigrations": true},
    )
    .await
    .unwrap();
    admin(
        &client,
        doc! {"moveChunk": "app.c", "find": {"k": 5}, "to": "shard0001"},
    )
    .await
    .unwrap();
    let err = admin(
        &client,
        doc! {"setAllowMigrations": "app.nope", "allowMigrations": false},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 118, "{err}");
    let check = admin(&client, doc! {"checkMetadataConsistency": 1})
        .await
        .unwrap();
    let batch = check
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap();
    assert!(batch.is_empty(), "{check}");
}

#[tokio::test]
async fn a_resharding_in_flight_is_aborted_or_committed_by_the_user() {
    let (_server, client, _) = serve_empty("8.0", false).await;
    admin(&client, doc! {"shardCollection": "app.c", "key": {"k": 1}})
        .await
        .unwrap();
    let coll = client.database("app").collection::<Document>("c");
    let docs: Vec<Document> = (0..100).map(|i| doc! {"k": i, "j": 100 - i}).collect();
    coll.insert_many(docs).await.unwrap();
    let err = admin(&client, doc! {"abortReshardCollection": "app.c"})
        .await
        .unwrap_err();
    assert_eq!(code_of(&err), 339, "{err}");
    // A reshard waits for its five minutes; another client aborts it.
    let c2 = client.clone();
    let reshard = tokio::spawn(async move {
        admin(&c2, doc! {"reshardCollection": "app.c", "key": {"j": 1}}).await
    });
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    admin(&client, doc! {"abortReshardCollection": "app.c"})
        .await
        .unwrap();
    let err = reshard.await.unwrap().unwrap_err();
    assert_eq!(code_of(&err), 341, "{err}");
    let c = config_collection(&client, "app.c").await.unwrap();
    assert_eq!(c.get_document("key").unwrap(), &doc! {"k": 1});
    // Again, committed early: it ends well before the minimum duration.
    let c2 = client.clone();
    let reshard = tokio::spawn(async move {
        admin(&c2, doc! {"reshardCollection": "app.c", "key": {"j": 1}}).await
    });
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    admin(&client, doc! {"commitReshardCollection": "app.c"})
        .await
        .unwrap();
    reshard.await.unwrap().unwrap();
    let c = config_collection(&client, "app.c").await.unwrap();
    assert_eq!(c.get_document("key").unwrap(), &doc! {"j": 1});
}
