#![allow(clippy::unwrap_used)]
//! A `reshardCollection` run through the real driver against `shardtop serve` makes the watching
//! poller reload the collection's routing table in full (new uuid and timestamp), and the
//! result equals a fresh poll.

use std::time::Duration;

use bson::{Document, doc};
use shardtop::cluster::{Cluster, SummaryOptions};
use shardtop::live::client::LiveClient;
use shardtop::live::poller::{Poller, now_ms, poll_once};
use shardtop::sim::{Simulator, scenario};

const SCENARIO: &str = r#"{
  "name": "reshard-small", "description": "test", "seedPassage": "none",
  "serverVersion": "8.0", "shards": 3,
  "reshardingMinimumOperationDurationMillis": 500,
  "collections": [{"ns": "shop.orders", "key": {"customerId": "hashed"}, "keepDocuments": true}],
  "workloads": [{"ns": "shop.orders", "rate": 2000, "count": 4000,
    "docSize": {"min": 200, "max": 200},
    "fields": {"customerId": {"uniformInt": {"min": 1, "max": 500}}, "placedAt": {"date": {}}}}],
  "until": 10
}"#;

fn chunks_of(s: &Cluster) -> serde_json::Value {
    s.summary_json(&SummaryOptions {
        source: String::new(),
        chunks: true,
        writes_unknown: true,
    })["collections"]
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reshard_makes_the_watcher_reload_everything() {
    let sc = scenario::parse(SCENARIO).unwrap();
    let mut sim = Simulator::from_scenario(&sc, 7, None).unwrap();
    sim.run_until(3_000);
    let (server, uri) = super::helpers::serve_with(sim, |o| o.paused = false).await;
    let admin = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let mut watching = Poller::new(
        LiveClient::connect(&uri, Duration::from_secs(5))
            .await
            .unwrap(),
    );
    watching.poll(now_ms()).await.unwrap();
    watching.poll(now_ms()).await.unwrap();
    assert!(watching.fetched_chunks < 10, "a quiet poll is incremental");
    admin
        .database("admin")
        .run_command(doc! {"reshardCollection": "shop.orders", "key": {"customerId": 1, "placedAt": 1}, "numInitialChunks": 12})
        .await
        .unwrap();
    let collections = admin
        .database("config")
        .collection::<Document>("collections");
    let mut done = false;
    for _ in 0..200 {
        let c = collections
            .find_one(doc! {"_id": "shop.orders"})
            .await
            .unwrap()
            .unwrap();
        if c.get_document("key").unwrap().contains_key("placedAt") {
            done = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(done, "the resharding committed");
    watching.poll(now_ms()).await.unwrap();
    assert_eq!(
        watching.fetched_chunks, 13,
        "a full reload of the new table (and config.system.sessions's chunk)"
    );
    let c = watching.state().collection("shop.orders").unwrap();
    assert_eq!(c.pattern.len(), 2);
    assert_eq!(c.table.len(), 12);
    let fresh = poll_once(&uri, Duration::from_secs(5)).await.unwrap();
    assert_eq!(chunks_of(watching.state()), chunks_of(&fresh.state));
    server.shutdown().await;
}
