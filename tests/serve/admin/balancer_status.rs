#![allow(clippy::unwrap_used)]
//! `balancerCollectionStatus` through the real `mongodb` driver: the answer comes from the
//! simulator's balancer policy — compliant, `chunksImbalance` (chunk counts before 6.0, data size
//! from 6.0), `zoneViolation`, `draining` — with `chunkSize` from 6.0.

use crate::common;

use bson::{Document, doc};
use mongodb::Client;
use mongodb::error::ErrorKind;
use shardtop::serve::Server;

async fn serve(version: &str) -> (Server, Client) {
    let (server, client, _) = common::serve_empty(version, true).await;
    (server, client)
}

async fn admin(client: &Client, cmd: Document) -> Document {
    client.database("admin").run_command(cmd).await.unwrap()
}

async fn status(client: &Client, ns: &str) -> Document {
    admin(client, doc! { "balancerCollectionStatus": ns }).await
}

fn violation(d: &Document) -> Option<&str> {
    d.get_str("firstComplianceViolation").ok()
}

/// `db.c` on `{k: 1}`, split at 10, 20, …, 60: seven empty chunks, all on the primary shard.
async fn seven_chunks(client: &Client) {
    admin(
        client,
        doc! { "shardCollection": "db.c", "key": { "k": 1 } },
    )
    .await;
    for k in [10, 20, 30, 40, 50, 60] {
        admin(client, doc! { "split": "db.c", "middle": { "k": k } }).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imbalance_is_counted_in_chunks_before_6_0_and_in_data_from_6_0() {
    let (server, client) = serve("4.4").await;
    admin(
        &client,
        doc! { "shardCollection": "db.c", "key": { "k": 1 } },
    )
    .await;
    let s = status(&client, "db.c").await;
    assert!(s.get_bool("balancerCompliant").unwrap(), "{s}");
    assert_eq!(violation(&s), None);
    assert!(!s.contains_key("chunkSize"));
    for k in [10, 20, 30, 40, 50, 60] {
        admin(&client, doc! { "split": "db.c", "middle": { "k": k } }).await;
    }
    let s = status(&client, "db.c").await;
    assert!(!s.get_bool("balancerCompliant").unwrap(), "{s}");
    assert_eq!(violation(&s), Some("chunksImbalance"));
    server.shutdown().await;

    let (server, client) = serve("8.0").await;
    seven_chunks(&client).await;
    let s = status(&client, "db.c").await;
    assert!(s.get_bool("balancerCompliant").unwrap(), "{s}");
    assert_eq!(
        s.get_i32("chunkSize").unwrap(),
        128,
        "int32 on 8.0, as real 8.0.32 answers"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zone_violations_and_draining_shards() {
    let (server, client) = serve("8.0").await;
    seven_chunks(&client).await;
    admin(&client, doc! { "addShardToZone": "shard0001", "zone": "Z" }).await;
    admin(
        &client,
        doc! { "updateZoneKeyRange": "db.c", "min": { "k": 10 }, "max": { "k": 20 }, "zone": "Z" },
    )
    .await;
    let s = status(&client, "db.c").await;
    assert_eq!(violation(&s), Some("zoneViolation"), "{s}");
    assert!(!s.get_bool("balancerCompliant").unwrap());
    admin(&client, doc! { "removeShard": "shard0000" }).await;
    let s = status(&client, "db.c").await;
    assert_eq!(violation(&s), Some("draining"), "{s}");
    let e = client
        .database("admin")
        .run_command(doc! { "balancerCollectionStatus": "db.nope" })
        .await
        .unwrap_err();
    let ErrorKind::Command(c) = &*e.kind else {
        panic!("{e}")
    };
    assert_eq!(c.code_name, "NamespaceNotSharded", "{e}");
    let e = client
        .database("db")
        .run_command(doc! { "balancerCollectionStatus": "db.c" })
        .await
        .unwrap_err();
    let ErrorKind::Command(c) = &*e.kind else {
        panic!("{e}")
    };
    assert_eq!(c.code, 13, "{e}");
    server.shutdown().await;
}
