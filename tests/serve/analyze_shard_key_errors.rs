#![allow(clippy::unwrap_used)]
//! `analyzeShardKey`'s refusals through the real driver against `shardtop serve`, with the
//! server's codes and words: the namespace, the key pattern, the options and their bounds, an
//! empty collection, a server before 7.0, the privilege it needs; and what it says of documents
//! the simulator counts but `serve` does not keep.

use crate::common;
use common::{admin, code_of, serve_empty, serve_opts};

use bson::{Document, doc};
use mongodb::Client;
use shardtop::serve::ServeOptions;
use shardtop::serve::access::Access;

/// `shop.orders`: 20 orders of 10 customers, indexed by customer.
async fn orders(client: &Client) {
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "customerId": i % 10})
        .collect();
    let coll = client.database("shop").collection::<Document>("orders");
    coll.insert_many(docs).await.unwrap();
    coll.create_index(
        mongodb::IndexModel::builder()
            .keys(doc! {"customerId": 1})
            .build(),
    )
    .await
    .unwrap();
}

fn long(d: &Document, field: &str) -> i64 {
    d.get_i64(field).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_errors() {
    let (_server, client, _) = serve_empty("7.0", true).await;
    orders(&client).await;
    let cases: Vec<(Document, i32, &str)> = vec![
        (
            doc! {"analyzeShardKey": "shop.nope", "key": {"a": 1}},
            26,
            "The namespace does not exist",
        ),
        (
            doc! {"analyzeShardKey": "shop", "key": {"a": 1}},
            73,
            "The namespace is invalid",
        ),
        (
            doc! {"analyzeShardKey": "config.chunks", "key": {"a": 1}},
            20,
            "Cannot run against an internal collection",
        ),
        (
            doc! {"analyzeShardKey": "shop.system.views", "key": {"a": 1}},
            20,
            "Cannot run against a system collection",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders"},
            40414,
            "BSON field 'analyzeShardKey.key' is missing but a required field",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": -1}},
            2,
            "Shard key { customerId: -1 }numerical fields must be set to a value of 1 (ascending). Failed to parse field customerId",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"a": "hashed", "b": "hashed"}},
            2,
            "Shard key { a: \"hashed\", b: \"hashed\" } can contain at most one 'hashed' field. Failed to parse field b",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": 1}, "keyCharacteristics": false, "readWriteDistribution": false},
            72,
            "Cannot skip analyzing all metrics",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": 1}, "sampleRate": 0.5, "sampleSize": 10},
            72,
            "Cannot specify both 'sampleRate' and 'sampleSize'",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": 1}, "sampleRate": 0},
            51024,
            "BSON field 'analyzeShardKey.sampleRate' value must be > 0, actual value '0'",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": 1}, "sampleRate": 1.5},
            51024,
            "BSON field 'analyzeShardKey.sampleRate' value must be <= 1, actual value '1.5'",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": 1}, "sampleSize": 3},
            72,
            "The requested number of most common values is 5 but the requested number of documents according to 'sampleSize' is 3",
        ),
        (
            doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": 1}, "keyCharacteristics": 1},
            14,
            "BSON field 'analyzeShardKey.keyCharacteristics' is the wrong type 'int', expected type 'bool'",
        ),
    ];
    for (cmd, code, message) in cases {
        let e = admin(&client, cmd.clone()).await.unwrap_err();
        assert_eq!(code_of(&e), code, "{cmd}: {e}");
        assert!(e.to_string().contains(message), "{cmd}: {e}");
    }
    // An admin-only command.
    let e = client
        .database("shop")
        .run_command(doc! {"analyzeShardKey": "shop.orders", "key": {"customerId": 1}})
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 13);
    // A collection without documents.
    client
        .database("shop")
        .run_command(doc! {"createIndexes": "empty", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})
        .await
        .unwrap();
    let e = admin(
        &client,
        doc! {"analyzeShardKey": "shop.empty", "key": {"a": 1}},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 20);
    assert!(
        e.to_string().contains(
            "Cannot analyze a shard key for an empty collection: CollectionIsEmptyLocally: Cannot \
         analyze the characteristics of a shard key for an empty collection"
        ),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_7_0_there_is_no_such_command() {
    let (_server, client, _) = serve_empty("6.0", true).await;
    let e = admin(
        &client,
        doc! {"analyzeShardKey": "shop.orders", "key": {"a": 1}},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&e), 59);
    assert!(
        e.to_string().contains("no such command: 'analyzeShardKey'"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_privilege_is_analyze_shard_key_on_the_collection() {
    let cmd = doc! {"analyzeShardKey": "shop.orders", "key": {"a": 1}};
    for (roles, code) in [
        ("clusterMonitor", 13),
        ("enableSharding", 26),
        ("clusterManager", 26),
    ] {
        let sim = shardtop::serve::empty_cluster(Some("8.0".parse().unwrap())).unwrap();
        let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
        opts.paused = true;
        opts.access = Some(Access::parse(roles).unwrap());
        let (_server, client, _) = serve_opts(opts).await;
        let e = admin(&client, cmd.clone()).await.unwrap_err();
        assert_eq!(code_of(&e), code, "{roles}: {e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_not_kept_are_said() {
    let sim = shardtop::serve::empty_cluster(Some("8.0".parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    opts.max_docs = 100;
    let (_server, client, _) = serve_opts(opts).await;
    let docs: Vec<Document> = (0..150).map(|i| doc! {"_id": i}).collect();
    let coll = client.database("shop").collection::<Document>("few");
    coll.insert_many(docs).await.unwrap();
    let r = admin(
        &client,
        doc! {"analyzeShardKey": "shop.few", "key": {"_id": 1}, "readWriteDistribution": false},
    )
    .await
    .unwrap();
    let kc = r.get_document("keyCharacteristics").unwrap();
    assert_eq!(
        (long(kc, "numDocsTotal"), long(kc, "numDocsSampled")),
        (150, 100)
    );
    assert!(kc.get_bool("isUnique").unwrap());
    assert!(r.get_str("shardtop").unwrap().contains("not kept"), "{r}");
}
