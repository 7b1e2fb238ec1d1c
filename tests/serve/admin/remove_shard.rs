#![allow(clippy::unwrap_used)]
//! Removing a shard through the real `mongodb` driver, worded as the config server words it:
//! `removeShard` started / ongoing (with `dbsToMove` until `movePrimary`) / completed only when
//! called again, and from 8.3 `startShardDraining`, `shardDrainingStatus`, `commitShardRemoval`.

use crate::common;

use bson::{Bson, Document, doc};
use mongodb::Client;

async fn admin(client: &Client, cmd: Document) -> Document {
    client.database("admin").run_command(cmd).await.unwrap()
}

async fn admin_err(client: &Client, cmd: Document) -> i32 {
    let e = client.database("admin").run_command(cmd).await.unwrap_err();
    common::code_of(&e)
}

fn strings(d: &Document, key: &str) -> Vec<String> {
    d.get_array(key)
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remove_shard_reports_dbs_to_move_until_move_primary_and_completes_when_called_again() {
    let (server, client, _) = common::serve_empty("8.0", true).await;
    admin(
        &client,
        doc! { "shardCollection": "db.c", "key": { "k": 1 } },
    )
    .await;
    // An empty shard: started, then completed by the second call.
    let started = admin(&client, doc! { "removeShard": "shard0002" }).await;
    assert_eq!(
        started.get_str("msg").unwrap(),
        "draining started successfully"
    );
    assert_eq!(started.get_str("state").unwrap(), "started");
    assert_eq!(started.get_str("shard").unwrap(), "shard0002");
    assert_eq!(
        started.get_str("note").unwrap(),
        "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the dbsToMove"
    );
    assert!(strings(&started, "dbsToMove").is_empty());
    assert!(strings(&started, "collectionsToMove").is_empty());
    let done = admin(&client, doc! { "removeShard": "shard0002" }).await;
    assert_eq!(done.get_str("state").unwrap(), "completed");
    assert_eq!(
        done.get_str("msg").unwrap(),
        "removeshard completed successfully"
    );
    // The primary of db, owning its chunk: ongoing, with what remains.
    let started = admin(&client, doc! { "removeShard": "shard0000" }).await;
    assert_eq!(strings(&started, "dbsToMove"), ["db"]);
    let ongoing = admin(&client, doc! { "removeShard": "shard0000" }).await;
    assert_eq!(ongoing.get_str("state").unwrap(), "ongoing");
    let remaining = ongoing.get_document("remaining").unwrap();
    assert_eq!(remaining.get("chunks"), Some(&Bson::Int64(1)));
    assert_eq!(remaining.get("dbs"), Some(&Bson::Int64(1)));
    assert_eq!(remaining.get("jumboChunks"), Some(&Bson::Int64(0)));
    assert_eq!(remaining.get("collectionsToMove"), Some(&Bson::Int64(0)));
    admin(&client, doc! { "movePrimary": "db", "to": "shard0001" }).await;
    let ongoing = admin(&client, doc! { "removeShard": "shard0000" }).await;
    assert!(strings(&ongoing, "dbsToMove").is_empty());
    let remaining = ongoing.get_document("remaining").unwrap();
    assert_eq!(remaining.get("dbs"), Some(&Bson::Int64(0)));
    // 8.0 has no 8.3 drain commands.
    assert_eq!(
        admin_err(&client, doc! { "startShardDraining": "shard0001" }).await,
        59
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_8_3_drain_commands_drain_report_and_commit() {
    let (server, client, _) = common::serve_empty("8.3", true).await;
    admin(
        &client,
        doc! { "shardCollection": "db.c", "key": { "k": 1 } },
    )
    .await;
    assert_eq!(
        admin_err(&client, doc! { "commitShardRemoval": "shard0000" }).await,
        1_003_141,
        "RemoveShardDrainingInProgress before the drain is done"
    );
    admin(&client, doc! { "startShardDraining": "shard0002" }).await;
    let status = admin(&client, doc! { "shardDrainingStatus": "shard0002" }).await;
    assert_eq!(status.get_str("state").unwrap(), "drainingComplete");
    assert_eq!(
        status.get_str("msg").unwrap(),
        "draining completed successfully"
    );
    admin(&client, doc! { "commitShardRemoval": "shard0002" }).await;
    let shards = admin(&client, doc! { "listShards": 1 }).await;
    assert_eq!(shards.get_array("shards").unwrap().len(), 2);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_settings_show_the_auto_merger_and_attempt_to_balance_jumbo_chunks() {
    let mut sim = common::two_shards("8.0");
    sim.set_auto_merge(false);
    sim.set_attempt_to_balance_jumbo_chunks(true);
    let (server, client) = common::serve_paused(sim).await;
    let docs = common::find_all(&client, "config", "settings", doc! {}).await;
    let by_id = |id: &str| docs.iter().find(|d| d.get_str("_id") == Ok(id)).cloned();
    assert_eq!(by_id("automerge").unwrap().get_bool("enabled"), Ok(false));
    assert_eq!(
        by_id("balancer")
            .unwrap()
            .get_bool("attemptToBalanceJumboChunks"),
        Ok(true)
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_8_3_the_drain_reports_the_bytes_still_on_the_shard() {
    let (server, client) = common::serve_paused(common::two_shards("8.3")).await;
    let items = client.database("app").collection::<bson::Document>("items");
    items
        .insert_many((0..50).map(|k| doc! { "k": k, "pad": "x".repeat(100) }))
        .await
        .unwrap();
    admin(&client, doc! { "startShardDraining": "shard0000" }).await;
    let status = admin(&client, doc! { "shardDrainingStatus": "shard0000" }).await;
    assert_eq!(status.get_str("state").unwrap(), "ongoing", "{status}");
    let bytes = status
        .get_document("remaining")
        .unwrap()
        .get_i64("estimatedRemainingBytes")
        .unwrap();
    assert!(bytes > 50 * 100, "{status}");
    server.shutdown().await;
    // Before 8.3 `remaining` has no such field.
    let (server, client) = common::serve_paused(common::two_shards("8.0")).await;
    let ongoing = admin(&client, doc! { "removeShard": "shard0000" }).await;
    let ongoing = admin(&client, doc! { "removeShard": "shard0000" })
        .await
        .get_document("remaining")
        .cloned()
        .unwrap_or(ongoing);
    assert!(
        !ongoing.contains_key("estimatedRemainingBytes"),
        "{ongoing}"
    );
    server.shutdown().await;
}
