#![allow(clippy::unwrap_used)]
//! Query sampling through the real driver against `shardtop serve` (7.0+): `configureQueryAnalyzer`,
//! `$listSampledQueries` in the documented shape at the configured rate, and the live source's
//! `--heat sampled`, which targets each new sample to its chunk.

use crate::common;
use common::{admin, code_of, serve_empty};

use std::time::{Duration, Instant};

use bson::{Document, doc};
use futures::TryStreamExt;
use mongodb::Client;
use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;
use shardtop::live::sampled_heat::{SampledHeat, available};

async fn samples(client: &Client) -> Vec<Document> {
    client
        .database("admin")
        .aggregate(vec![doc! {"$listSampledQueries": {"namespace": "app.c"}}])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

async fn three_chunks(client: &Client) {
    admin(client, doc! {"shardCollection": "app.c", "key": {"x": 1}})
        .await
        .unwrap();
    for m in [100, 200] {
        admin(client, doc! {"split": "app.c", "middle": {"x": m}})
            .await
            .unwrap();
    }
}

async fn find(client: &Client, x: i32, times: usize) {
    let coll = client.database("app").collection::<Document>("c");
    for _ in 0..times {
        let _: Vec<Document> = coll
            .find(doc! {"x": x})
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn samples_have_the_documented_shape_and_rate() {
    let (server, client, _) = serve_empty("7.0", true).await;
    three_chunks(&client).await;
    let reply = admin(
        &client,
        doc! {"configureQueryAnalyzer": "app.c", "mode": "full", "samplesPerSecond": 1},
    )
    .await
    .unwrap();
    assert_eq!(
        reply.get_document("newConfiguration").unwrap(),
        &doc! {"mode": "full", "samplesPerSecond": 1.0}
    );
    let started = Instant::now();
    find(&client, 5, 10).await;
    let elapsed = started.elapsed().as_secs_f64();
    let got = samples(&client).await;
    // One token to start with, one more per second.
    assert!(!got.is_empty());
    assert!(
        got.len() as f64 <= 1.0 + elapsed.ceil(),
        "{} in {elapsed} s",
        got.len()
    );
    let s = &got[0];
    let keys: Vec<&str> = s.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["_id", "ns", "collectionUuid", "cmdName", "cmd", "expireAt"]
    );
    assert!(
        matches!(s.get("_id"), Some(bson::Bson::Binary(b)) if b.subtype == bson::spec::BinarySubtype::Uuid)
    );
    assert_eq!(s.get_str("cmdName").unwrap(), "find");
    assert_eq!(
        s.get_document("cmd")
            .unwrap()
            .get_document("filter")
            .unwrap(),
        &doc! {"x": 5}
    );
    let coll = client
        .database("config")
        .collection::<Document>("collections")
        .find_one(doc! {"_id": "app.c"})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s.get("collectionUuid"), coll.get("uuid"));
    let ttl = s.get_datetime("expireAt").unwrap().timestamp_millis()
        - bson::DateTime::now().timestamp_millis();
    assert!((6 * 86_400_000..=7 * 86_400_000).contains(&ttl), "{ttl}");
    // Inserts are not sampled; off stops sampling.
    admin(
        &client,
        doc! {"configureQueryAnalyzer": "app.c", "mode": "off"},
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    find(&client, 5, 3).await;
    assert_eq!(samples(&client).await.len(), got.len());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_7_0_there_is_no_query_sampling() {
    let (server, client, _) = serve_empty("6.0", true).await;
    three_chunks(&client).await;
    let err = admin(
        &client,
        doc! {"configureQueryAnalyzer": "app.c", "mode": "full", "samplesPerSecond": 1},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 59);
    let err = admin(
        &client,
        doc! {"aggregate": 1, "pipeline": [{"$listSampledQueries": {}}], "cursor": {}},
    )
    .await
    .unwrap_err();
    assert_eq!(code_of(&err), 40324);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampled_heat_targets_each_new_sample_to_its_chunk() {
    let (server, client, uri) = serve_empty("8.0", true).await;
    three_chunks(&client).await;
    let live = LiveClient::connect(&uri, Duration::from_secs(5))
        .await
        .unwrap();
    assert!(!available(&live).await, "nothing sampled yet");
    // A watch that started before any sample counts the first ones.
    let mut early = Poller::new(
        LiveClient::connect(&uri, Duration::from_secs(5))
            .await
            .unwrap(),
    );
    early.sampled_heat = Some(SampledHeat::default());
    early.poll(0).await.unwrap();
    admin(
        &client,
        doc! {"configureQueryAnalyzer": "app.c", "mode": "full", "samplesPerSecond": 50},
    )
    .await
    .unwrap();
    // Samples from before the watch started give no heat.
    find(&client, 150, 5).await;
    let mut poller = Poller::new(live);
    poller.sampled_heat = Some(SampledHeat::default());
    let first = poller.poll(0).await.unwrap();
    assert_eq!(first.state.collections[0].window.total(0), 0);
    assert!(available(&poller.client).await);
    find(&client, 250, 20).await;
    find(&client, 50, 5).await;
    // A range over two chunks counts on both.
    let coll = client.database("app").collection::<Document>("c");
    let _: Vec<Document> = coll
        .find(doc! {"x": {"$gte": 150, "$lt": 250}})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let polled = poller.poll(1_000).await.unwrap();
    let c = &polled.state.collections[0];
    let by_chunk = c.window.by_chunk(&c.table, 1_000);
    assert_eq!(by_chunk.get(&2), Some(&21), "[200, MaxKey): {by_chunk:?}");
    assert_eq!(by_chunk.get(&0), Some(&5), "[MinKey, 100): {by_chunk:?}");
    assert_eq!(by_chunk.get(&1), Some(&1), "[100, 200): {by_chunk:?}");
    let hottest = c.window.hottest(&c.table, 1_000).unwrap();
    assert_eq!(hottest.chunk, 2);
    let early = early.poll(1_000).await.unwrap();
    let c = &early.state.collections[0];
    assert_eq!(
        c.window.by_chunk(&c.table, 1_000).get(&1),
        Some(&6),
        "5 before + 1 range"
    );
    server.shutdown().await;
}
