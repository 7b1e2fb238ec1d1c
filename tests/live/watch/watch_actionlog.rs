#![allow(clippy::unwrap_used)]
//! `config.actionlog` as `shardtop serve` writes it (balancer rounds in the real 4.4 shape, with
//! the version's spelling of the error flag) and as the live source reads it (each round a log
//! line with its candidates, moves and time), and the donors' `moveChunk.from` entries that
//! `sh.status()` counts as migration results.

use std::time::Duration;

use bson::{Document, doc};
use futures::TryStreamExt;
use shardtop::live::poller::poll_once;
use shardtop::serve::Server;
use shardtop::sim::{Simulator, scenario};

async fn serve_ascending(version: &str, until_ms: u64) -> (Server, String) {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
    sim.run_until(until_ms);
    super::helpers::serve_paused(sim).await
}

async fn actionlog(uri: &str) -> Vec<Document> {
    let client = mongodb::Client::with_uri_str(uri).await.unwrap();
    client
        .database("config")
        .collection::<Document>("actionlog")
        .find(doc! {"what": "balancer.round"})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

fn sorted_keys(d: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    let mut k: Vec<String> = d.keys().cloned().collect();
    k.sort();
    k
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn balancer_rounds_have_the_real_4_4_shape() {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../../fixtures/config/4.4.json")).unwrap();
    let real = fixture["actionlog"][0].as_object().unwrap();
    let (server, uri) = serve_ascending("4.4", 150_000).await;
    let rounds = actionlog(&uri).await;
    server.shutdown().await;
    assert!(rounds.len() > 3, "{rounds:?}");
    let ours: serde_json::Value = bson::Bson::Document(rounds[0].clone()).into_relaxed_extjson();
    let ours = ours.as_object().unwrap();
    assert_eq!(sorted_keys(ours), sorted_keys(real));
    assert_eq!(
        sorted_keys(ours["details"].as_object().unwrap()),
        sorted_keys(real["details"].as_object().unwrap())
    );
    assert_eq!(ours["ns"], "");
    // The rounds moved chunks: ascending inserts pile up on one shard and the balancer acts.
    let moved: i64 = rounds
        .iter()
        .map(|r| {
            r.get_document("details")
                .unwrap()
                .get_i64("chunksMoved")
                .unwrap()
        })
        .sum();
    assert!(moved > 0, "{rounds:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn newer_servers_spell_error_occurred() {
    let (server, uri) = serve_ascending("7.0", 150_000).await;
    let rounds = actionlog(&uri).await;
    server.shutdown().await;
    let details = rounds[0].get_document("details").unwrap();
    assert_eq!(details.get_bool("errorOccurred"), Ok(false));
    assert!(details.get("errorOccured").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_source_logs_each_balancer_round() {
    let (server, uri) = serve_ascending("6.0", 150_000).await;
    let expected = actionlog(&uri).await;
    let polled = poll_once(&uri, Duration::from_secs(5)).await.unwrap();
    server.shutdown().await;
    let lines: Vec<&str> = polled
        .log
        .iter()
        .filter(|l| l.text.starts_with("balancer.round"))
        .map(|l| l.text.as_str())
        .collect();
    // The first poll reads the newest 100 rounds.
    assert_eq!(lines.len(), expected.len().min(100), "{lines:?}");
    let newest = expected.last().unwrap().get_document("details").unwrap();
    let candidates = newest.get_i64("candidateChunks").unwrap();
    let want = format!(
        "{candidates} candidate{}, {} moved, {} ms",
        if candidates == 1 { "" } else { "s" },
        newest.get_i64("chunksMoved").unwrap(),
        newest.get_i64("executionTimeMillis").unwrap()
    );
    assert!(lines.last().unwrap().contains(&want), "{lines:?} vs {want}");
    // Log lines come oldest first across both logs.
    assert!(polled.log.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn donors_log_migration_results_as_sh_status_reads_them() {
    let (server, uri) = serve_ascending("6.0", 150_000).await;
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let changelog = client
        .database("config")
        .collection::<Document>("changelog");
    let commits = changelog
        .count_documents(doc! {"what": "moveChunk.commit"})
        .await
        .unwrap();
    assert!(commits > 0);
    // The pipeline mongosh's sh.status() sends for "Migration Results for the last 24 hours".
    let yesterday =
        bson::DateTime::from_millis(bson::DateTime::now().timestamp_millis() - 86_400_000);
    let results: Vec<Document> = changelog
        .aggregate(vec![
            doc! {"$match": {"time": {"$gt": yesterday}, "what": "moveChunk.from",
            "details.errmsg": {"$exists": false}, "details.note": "success"}},
            doc! {"$group": {"_id": {"msg": "$details.errmsg"}, "count": {"$sum": 1}}},
            doc! {"$project": {"_id": {"$ifNull": ["$_id.msg", "Success"]}, "count": "$count"}},
        ])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    server.shutdown().await;
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].get_str("_id").unwrap(), "Success");
    let count = match results[0].get("count").unwrap() {
        bson::Bson::Int32(n) => u64::from(*n as u32),
        bson::Bson::Int64(n) => *n as u64,
        other => panic!("{other:?}"),
    };
    assert_eq!(count, commits);
}
