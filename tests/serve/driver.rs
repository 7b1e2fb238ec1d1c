#![allow(clippy::unwrap_used)]
//! `shardtop serve` through the real `mongodb` driver: the handshake as a mongos, the config
//! database per server version, sharding commands, inserts routed into the simulator, errors.

use crate::common;
use common::{admin, code_of};

use std::time::Duration;

use bson::{Bson, Document, doc};
use futures::TryStreamExt;
use mongodb::Client;
use shardtop::serve::Server;

async fn serve(version: &str, paused: bool) -> (Server, Client) {
    let (server, client, _) = common::serve_empty(version, paused).await;
    (server, client)
}

async fn config_find(client: &Client, coll: &str, filter: Document) -> Vec<Document> {
    common::find_all(client, "config", coll, filter).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshake_as_a_mongos_and_catalog() {
    for (version, wire) in [("4.4", 9), ("8.0", 25)] {
        let (server, client) = serve(version, true).await;
        let hello = admin(&client, doc! { "hello": 1 }).await.unwrap();
        assert_eq!(hello.get_str("msg").unwrap(), "isdbgrid");
        assert_eq!(hello.get_i32("maxWireVersion").unwrap(), wire);
        let build = admin(&client, doc! { "buildInfo": 1 }).await.unwrap();
        assert_eq!(build.get_str("version").unwrap(), format!("{version}.0"));
        let fcv = admin(
            &client,
            doc! { "getParameter": 1, "featureCompatibilityVersion": 1 },
        )
        .await
        .unwrap();
        assert_eq!(
            fcv.get_document("featureCompatibilityVersion")
                .unwrap()
                .get_str("version")
                .unwrap(),
            version
        );
        for cmd in [
            "ping",
            "connectionStatus",
            "hostInfo",
            "whatsmyuri",
            "serverStatus",
        ] {
            admin(&client, doc! { cmd: 1 }).await.unwrap();
        }
        let names = client.list_database_names().await.unwrap();
        assert!(names.contains(&"config".to_string()), "{names:?}");
        let shards = config_find(&client, "shards", doc! {}).await;
        let ids: Vec<&str> = shards.iter().map(|s| s.get_str("_id").unwrap()).collect();
        assert_eq!(ids, ["shard0000", "shard0001", "shard0002"]);
        assert_eq!(shards[0].contains_key("topologyTime"), version != "4.4");
        let colls = client
            .database("config")
            .list_collection_names()
            .await
            .unwrap();
        assert!(colls.contains(&"chunks".to_string()));
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_command_is_command_not_found() {
    let (server, client) = serve("8.0", true).await;
    let e = admin(&client, doc! { "noSuchThing": 1 }).await.unwrap_err();
    assert_eq!(code_of(&e), 59);
    assert!(
        e.to_string().contains("no such command: 'noSuchThing'"),
        "{e}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hashed_collection_chunks_by_ns_before_5_0_and_by_uuid_after() {
    for (version, chunks) in [("4.4", 6), ("8.0", 3)] {
        let (server, client) = serve(version, true).await;
        admin(&client, doc! { "enableSharding": "app" })
            .await
            .unwrap();
        admin(
            &client,
            doc! { "shardCollection": "app.users", "key": { "username": "hashed" } },
        )
        .await
        .unwrap();
        let coll = &config_find(&client, "collections", doc! { "_id": "app.users" }).await[0];
        let docs = if version == "4.4" {
            assert!(!coll.contains_key("timestamp"));
            config_find(&client, "chunks", doc! { "ns": "app.users" }).await
        } else {
            assert!(coll.contains_key("timestamp"));
            let uuid = coll.get("uuid").unwrap().clone();
            config_find(&client, "chunks", doc! { "uuid": uuid }).await
        };
        assert_eq!(docs.len(), chunks, "{version}");
        for d in &docs {
            assert!(matches!(d.get("lastmod"), Some(Bson::Timestamp(_))));
            assert_eq!(d.contains_key("lastmodEpoch"), version == "4.4");
            assert_eq!(d.contains_key("onCurrentShardSince"), version == "8.0");
            assert!(d.get_array("history").is_ok());
        }
        // Sorted, projected, limited.
        let first: Vec<Document> = client
            .database("config")
            .collection::<Document>("chunks")
            .find(doc! {})
            .sort(doc! { "shard": -1 })
            .projection(doc! { "_id": 0, "shard": 1 })
            .limit(1)
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(first, vec![doc! { "shard": "shard0002" }]);
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inserts_on_an_ascending_key_all_land_in_the_max_chunk() {
    let (server, client) = serve("8.0", true).await;
    admin(
        &client,
        doc! { "shardCollection": "app.events", "key": { "ts": 1 } },
    )
    .await
    .unwrap();
    admin(
        &client,
        doc! { "split": "app.events", "middle": { "ts": 0 } },
    )
    .await
    .unwrap();
    let docs: Vec<Document> = (0..1000).map(|i| doc! { "ts": i + 1, "x": "a" }).collect();
    let events = client.database("app").collection::<Document>("events");
    let result = events.insert_many(docs).await.unwrap();
    assert_eq!(result.inserted_ids.len(), 1000);
    let count = client
        .database("app")
        .run_command(doc! { "count": "events" })
        .await
        .unwrap();
    assert_eq!(
        count.get_i32("n").unwrap(),
        1000,
        "int32, as appendNumber gives it"
    );
    let sessions = common::sessions_chunk_test(&client).await;
    let chunks: Vec<Document> = config_find(&client, "chunks", doc! {})
        .await
        .into_iter()
        .filter(|d| !sessions(d))
        .collect();
    assert_eq!(chunks.len(), 2);
    // The simulator saw every write in the chunk [0, MaxKey).
    let status = admin(&client, doc! { "serverStatus": 1 }).await.unwrap();
    assert!(status.get_document("shardtop").is_ok());
    let e = admin(
        &client,
        doc! { "split": "app.events", "middle": { "nope": 0 } },
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 2);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharding_commands_change_the_config_database() {
    let (server, client) = serve("7.0", true).await;
    admin(
        &client,
        doc! { "shardCollection": "db.c", "key": { "k": 1 } },
    )
    .await
    .unwrap();
    admin(&client, doc! { "split": "db.c", "middle": { "k": 10 } })
        .await
        .unwrap();
    admin(&client, doc! { "addShardToZone": "shard0001", "zone": "Z" })
        .await
        .unwrap();
    admin(
        &client,
        doc! { "updateZoneKeyRange": "db.c", "min": { "k": 10 }, "max": { "k": 20 }, "zone": "Z" },
    )
    .await
    .unwrap();
    let tags = config_find(&client, "tags", doc! { "ns": "db.c" }).await;
    assert_eq!(tags.len(), 1);
    assert_eq!(tags[0].get_str("tag").unwrap(), "Z");
    let shard = &config_find(&client, "shards", doc! { "_id": "shard0001" }).await[0];
    assert_eq!(shard.get_array("tags").unwrap(), &vec![Bson::from("Z")]);
    admin(&client, doc! { "balancerStop": 1 }).await.unwrap();
    let st = admin(&client, doc! { "balancerStatus": 1 }).await.unwrap();
    assert_eq!(st.get_str("mode").unwrap(), "off");
    let balancer = config_find(&client, "settings", doc! { "_id": "balancer" }).await;
    assert!(balancer[0].get_bool("stopped").unwrap());
    let added = admin(&client, doc! { "addShard": "rs9/h:27018" })
        .await
        .unwrap();
    assert_eq!(added.get_str("shardAdded").unwrap(), "rs9");
    let e = admin(
        &client,
        doc! { "moveChunk": "db.c", "find": { "k": 5 }, "to": "nope" },
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 70);
    let e = client
        .database("db")
        .run_command(doc! { "shardCollection": "db.d", "key": { "k": 1 } })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 13);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_more_walks_a_large_result_in_batches() {
    // 7.0 still honours numInitialChunks (8.0 makes one chunk per shard).
    let (server, client) = serve("7.0", true).await;
    admin(
        &client,
        doc! { "shardCollection": "big.c", "key": { "h": "hashed" }, "numInitialChunks": 500 },
    )
    .await
    .unwrap();
    let all: Vec<Document> = client
        .database("config")
        .collection::<Document>("chunks")
        .find(doc! { "min.h": { "$gte": 0i64 } })
        .batch_size(50)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert!((240..=260).contains(&all.len()), "{}", all.len());
    let n = client
        .database("config")
        .collection::<Document>("chunks")
        .count_documents(doc! {})
        .await;
    // And the one chunk of `config.system.sessions`, as on every cluster.
    assert_eq!(n.unwrap(), 501);
    let distinct = client
        .database("config")
        .collection::<Document>("chunks")
        .distinct("shard", doc! {})
        .await
        .unwrap();
    assert_eq!(distinct.len(), 3);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulator_runs_in_real_time_unless_paused() {
    let (server, client) = serve("8.0", false).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let st = admin(&client, doc! { "serverStatus": 1 }).await.unwrap();
        let t = st
            .get_document("shardtop")
            .unwrap()
            .get_i64("virtualTimeMillis")
            .unwrap();
        if t >= 300 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "clock stuck at {t}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pipelines_sh_status_sends() {
    let (server, client) = serve("7.0", true).await;
    admin(
        &client,
        doc! { "shardCollection": "app.users", "key": { "u": "hashed" } },
    )
    .await
    .unwrap();
    let users = client.database("app").collection::<Document>("users");
    let docs: Vec<Document> = (0..300).map(|i| doc! { "u": format!("user{i}") }).collect();
    users.insert_many(docs).await.unwrap();
    let coll = &config_find(&client, "collections", doc! { "_id": "app.users" }).await[0];
    let uuid = coll.get("uuid").unwrap().clone();
    let pipeline = vec![
        doc! { "$match": { "uuid": uuid } },
        doc! { "$group": { "_id": "$shard", "cnt": { "$sum": 1 } } },
        doc! { "$project": { "_id": 0, "shard": "$_id", "nChunks": "$cnt" } },
        doc! { "$sort": { "shard": 1 } },
    ];
    let per_shard: Vec<Document> = client
        .database("config")
        .collection::<Document>("chunks")
        .aggregate(pipeline)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        per_shard,
        vec![
            doc! { "shard": "shard0000", "nChunks": 2 },
            doc! { "shard": "shard0001", "nChunks": 2 },
            doc! { "shard": "shard0002", "nChunks": 2 },
        ]
    );
    let dist: Vec<Document> = client
        .database("admin")
        .aggregate(vec![doc! { "$shardedDataDistribution": {} }])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let owned: i64 = dist[0]
        .get_array("shards")
        .unwrap()
        .iter()
        .map(|s| {
            s.as_document()
                .unwrap()
                .get_i32("numOwnedDocuments")
                .map(i64::from)
                .unwrap()
        })
        .sum();
    assert_eq!(owned, 300);
    assert_eq!(users.count_documents(doc! {}).await.unwrap(), 300);
    let e = client
        .database("config")
        .collection::<Document>("chunks")
        .aggregate(vec![doc! { "$bucketAuto": {} }])
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 40324);
    server.shutdown().await;
}
