#![allow(clippy::unwrap_used)]
//! `shardtop lab --from URI --ns db.coll` against `shardtop serve` (8.0): a `$sample` of the
//! collection, its unique indexes, and with `--sampled-queries` its sampled queries as the
//! traffic; `serve`'s `$sample` itself (size, bounds, MongoDB's errors); a user who may not read
//! the collection is told the privilege.

use crate::common;
use common::{admin, code_of, serve_empty, serve_opts};

use bson::{Document, doc};
use futures::TryStreamExt;
use mongodb::Client;

const BIN: &str = env!("CARGO_BIN_EXE_shardtop");

async fn orders(client: &Client, n: i32) {
    let coll = client.database("shop").collection::<Document>("orders");
    let docs: Vec<Document> = (0..n)
        .map(|i| doc! {"_id": i, "customerId": i % 97, "orderNo": i / 97, "city": format!("c{}", i % 8)})
        .collect();
    coll.insert_many(docs).await.unwrap();
    let db = client.database("shop");
    db.run_command(doc! {
        "createIndexes": "orders",
        "indexes": [{"key": {"customerId": 1, "orderNo": 1}, "name": "c_o", "unique": true}],
    })
    .await
    .unwrap();
}

async fn lab(args: Vec<String>) -> (Option<i32>, String, String) {
    tokio::task::spawn_blocking(move || {
        let o = std::process::Command::new(BIN)
            .arg("lab")
            .args(&args)
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

fn args(uri: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--from",
        uri,
        "--ns",
        "shop.orders",
        "--key",
        r#"{"customerId": 1}"#,
        "--key",
        r#"{"city": 1}"#,
        "--json",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect();
    a.extend(extra.iter().map(|s| (*s).to_string()));
    a
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sample_of_a_live_collection_with_its_unique_index_and_sampled_queries() {
    let (server, client, uri) = serve_empty("8.0", true).await;
    orders(&client, 3000).await;
    admin(
        &client,
        doc! {"configureQueryAnalyzer": "shop.orders", "mode": "full", "samplesPerSecond": 50},
    )
    .await
    .unwrap();
    let coll = client.database("shop").collection::<Document>("orders");
    for c in [5, 6, 7] {
        let _: Vec<Document> = coll
            .find(doc! {"customerId": c})
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
    }
    let (code, out, err) = lab(args(&uri, &["--sample", "1000", "--sampled-queries"])).await;
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["documents"], 1000);
    // The three finds, and the lab's own `$sample` (an aggregate is sampled too).
    assert_eq!(json["queries"], 4);
    let c = &json["candidates"][0];
    assert_eq!(
        c["uniqueIndexes"][0],
        serde_json::json!({"key": {"customerId": 1, "orderNo": 1}, "allowed": true})
    );
    assert_eq!(
        c["queries"][0]["filter"],
        serde_json::json!({"customerId": 5})
    );
    assert_eq!(c["reads"]["percentageOfSingleShardReads"], 75.0);
    assert_eq!(c["queries"][3]["command"], "aggregate");
    assert_eq!(
        json["candidates"][1]["keyCharacteristics"]["numDistinctValues"],
        8
    );
    // Without --sampled-queries there is no traffic.
    let (code, out, err) = lab(args(&uri, &["--sample", "50"])).await;
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (json["documents"].clone(), json["queries"].clone()),
        (50.into(), 0.into())
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_sample_stage_takes_at_most_size_documents_and_checks_its_argument() {
    let (server, client, _) = serve_empty("8.0", true).await;
    orders(&client, 200).await;
    let coll = client.database("shop").collection::<Document>("orders");
    let sample = |size: bson::Bson| {
        let coll = coll.clone();
        async move {
            let docs: Result<Vec<Document>, _> =
                match coll.aggregate(vec![doc! {"$sample": {"size": size}}]).await {
                    Ok(c) => c.try_collect().await,
                    Err(e) => Err(e),
                };
            docs
        }
    };
    let some = sample(bson::Bson::Int32(20)).await.unwrap();
    assert_eq!(some.len(), 20);
    let mut ids: Vec<i32> = some.iter().map(|d| d.get_i32("_id").unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 20, "no document twice");
    assert_eq!(sample(bson::Bson::Int64(1000)).await.unwrap().len(), 200);
    let e = sample(bson::Bson::Int32(-1)).await.unwrap_err();
    assert_eq!(code_of(&e), 28747);
    let e = sample(bson::Bson::String("x".into())).await.unwrap_err();
    assert_eq!(code_of(&e), 28746);
    let e = coll
        .aggregate(vec![doc! {"$sample": {"size": 1, "n": 2}}])
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 28748);
    let e = coll
        .aggregate(vec![doc! {"$sample": {}}])
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 28749);
    let e = coll.aggregate(vec![doc! {"$sample": 3}]).await.unwrap_err();
    assert_eq!(code_of(&e), 28745);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lab_sends_only_allowlisted_reads() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("commands.ndjson");
    let sim = shardtop::serve::empty_cluster(Some("8.0".parse().unwrap())).unwrap();
    let mut opts = shardtop::serve::ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    opts.command_log = Some(log.clone());
    let (server, client, uri) = serve_opts(opts).await;
    orders(&client, 500).await;
    let before = std::fs::read_to_string(&log).unwrap().lines().count();
    let (code, _, err) = lab(args(&uri, &["--sample", "100", "--sampled-queries"])).await;
    assert_eq!(code, Some(0), "{err}");
    server.shutdown().await;
    let text = std::fs::read_to_string(&log).unwrap();
    let driver_own = ["isMaster", "ismaster", "hello", "endSessions", "ping"];
    let mut seen = Vec::new();
    for line in text.lines().skip(before) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(cmd) = v["command"].as_str() else {
            continue;
        };
        assert!(
            ["aggregate", "listIndexes", "getMore", "killCursors"].contains(&cmd)
                || driver_own.contains(&cmd),
            "the lab sent {cmd}: {line}"
        );
        assert!(shardtop::live::client::ALLOWED.contains(&cmd) || driver_own.contains(&cmd));
        seen.push(cmd.to_string());
    }
    assert!(seen.iter().any(|c| c == "aggregate") && seen.iter().any(|c| c == "listIndexes"));
}

#[test]
fn a_user_who_may_not_read_the_collection_is_told_the_privilege() {
    let served = common::tmux::Served::with(&["--paused", "--user-roles", "clusterMonitor"]);
    let uri = format!("mongodb://127.0.0.1:{}/?directConnection=true", served.1);
    let o = std::process::Command::new(BIN)
        .arg("lab")
        .args(args(&uri, &[]))
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the find action on shop.orders"), "{err}");
}
