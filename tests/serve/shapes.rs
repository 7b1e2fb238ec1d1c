#![allow(clippy::unwrap_used)]
//! The config.chunks documents `shardtop serve` generates have the fields real clusters' have:
//! 4.4 (`ns`, `lastmodEpoch`) and 7.0 (`uuid`, `onCurrentShardSince`, in the server's order).

use bson::{Document, doc};
use shardtop::serve::{ServeOptions, empty_cluster, start};

/// The top-level field names of the first chunk document in a fixture (the fields at the
/// indentation of its `_id: ObjectId(…)` line).
fn fixture_fields(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with("_id: ObjectId"))
        .unwrap();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let depth = indent(lines[start]);
    let mut fields = Vec::new();
    for l in &lines[start..] {
        if l.trim().is_empty() {
            continue;
        }
        if indent(l) < depth {
            break;
        }
        if indent(l) == depth
            && let Some((name, _)) = l.trim_start().split_once(':')
        {
            fields.push(name.to_string());
        }
    }
    fields
}

async fn generated_chunk(version: &str) -> Document {
    let sim = empty_cluster(Some(version.parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=5000",
        server.local_addr()
    );
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    client
        .database("admin")
        .run_command(doc! { "shardCollection": "test.authors", "key": { "x": 1 } })
        .await
        .unwrap();
    let chunks: Vec<Document> = crate::common::find_all(&client, "config", "chunks", doc! {}).await;
    server.shutdown().await;
    chunks.into_iter().next().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunk_fields_match_real_7_0_documents_in_order() {
    let fixture = fixture_fields(include_str!(
        "../fixtures/real-config/checkMetadataConsistency-chunks-7.0.docs.ejson.txt"
    ));
    assert_eq!(
        fixture,
        [
            "_id",
            "uuid",
            "min",
            "max",
            "shard",
            "lastmod",
            "onCurrentShardSince",
            "history"
        ]
    );
    for version in ["7.0", "8.0"] {
        let chunk = generated_chunk(version).await;
        let ours: Vec<&String> = chunk.keys().collect();
        assert_eq!(ours, fixture.iter().collect::<Vec<_>>(), "{version}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunk_fields_match_real_4_4_documents() {
    let mut fixture = fixture_fields(include_str!("../fixtures/real-config/chunks-4.4.ejson.txt"));
    fixture.sort();
    let chunk = generated_chunk("4.4").await;
    let mut ours: Vec<String> = chunk.keys().cloned().collect();
    ours.sort();
    // The 4.4 dump was inserted through the Node driver: its field order is not the server's.
    assert_eq!(ours, fixture);
}
