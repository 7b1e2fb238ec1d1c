#![allow(clippy::unwrap_used)]
//! `config.chunks` read lazily (a `find` without a sort builds each batch as it is asked for):
//! every chunk once, in key order, across getMores, with skip, limit, projection and filters.

use crate::common;

use bson::{Document, doc};
use futures::TryStreamExt;
use mongodb::options::FindOptions;
use shardtop::cluster::ServerVersion;
use shardtop::sim::{Simulator, scenario};

fn hashed(chunks: u32) -> Simulator {
    let text = format!(
        r#"{{"name": "big", "description": "", "seedPassage": "", "serverVersion": "7.0",
        "shards": 3, "collections": [{{"ns": "app.big", "key": {{"h": "hashed"}},
        "numInitialChunks": {chunks}}}], "until": 1}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    Simulator::from_scenario(&sc, 1, None).unwrap()
}

/// The chunk documents a find returns, less `config.system.sessions`'s.
async fn read(client: &mongodb::Client, filter: Document, opts: FindOptions) -> Vec<Document> {
    let sessions = common::sessions_chunk_test(client).await;
    let all: Vec<Document> = client
        .database("config")
        .collection::<Document>("chunks")
        .find(filter)
        .with_options(opts)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    all.into_iter().filter(|d| !sessions(d)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunks_are_read_batch_by_batch_each_once_in_key_order() {
    let (server, client) = common::serve_paused(hashed(5_000)).await;
    let all = read(
        &client,
        doc! {},
        FindOptions::builder().batch_size(700).build(),
    )
    .await;
    assert_eq!(all.len(), 5_000);
    let mins: Vec<i64> = all
        .iter()
        .skip(1)
        .map(|d| d.get_document("min").unwrap().get_i64("h").unwrap())
        .collect();
    assert!(
        mins.windows(2).all(|w| w[0] < w[1]),
        "key order, no repeats"
    );
    // The same as the sorted (eager) read.
    let sorted = read(
        &client,
        doc! {},
        FindOptions::builder().sort(doc! {"min": 1}).build(),
    )
    .await;
    assert_eq!(all, sorted);
    let page = read(
        &client,
        doc! {},
        FindOptions::builder()
            .skip(5)
            .limit(7)
            .projection(doc! {"min": 1, "_id": 0})
            .build(),
    )
    .await;
    let want: Vec<Document> = all[5..12]
        .iter()
        .map(|d| doc! {"min": d.get_document("min").unwrap().clone()})
        .collect();
    assert_eq!(page, want);
    let on_one = read(&client, doc! {"shard": "shard0001"}, FindOptions::default()).await;
    assert_eq!(
        on_one.len(),
        all.iter()
            .filter(|d| d.get_str("shard") == Ok("shard0001"))
            .count()
    );
    server.shutdown().await;
}

/// The lazy read (chunk documents written straight into bytes for these filters) gives the same
/// documents as the sorted read, which builds them, in each version's shape (compared in `_id`
/// order: the sort on `min` interleaves the two collections).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lazy_filtered_reads_equal_the_built_documents_in_every_shape() {
    for v in ["4.4", "5.0", "7.0", "8.0"] {
        let text = r#"{"name": "big", "description": "", "seedPassage": "", "shards": 3,
            "collections": [{"ns": "app.big", "key": {"h": "hashed"}, "numInitialChunks": 1200},
                            {"ns": "app.r", "key": {"r": 1}}], "until": 1}"#;
        let sc = scenario::parse(text).unwrap();
        // 8.0 ignores numInitialChunks: lay the table out by 7.0's rule, read it in v's shape.
        let version: ServerVersion = v.parse().unwrap();
        let mut sim =
            Simulator::from_scenario(&sc, 1, Some(version.min(ServerVersion::V7_0))).unwrap();
        sim.cluster.version = version;
        sim.cluster.collections[0].table.set_jumbo(7, true);
        let (server, client) = common::serve_paused(sim).await;
        let coll = client
            .database("config")
            .collection::<Document>("collections")
            .find_one(doc! {"_id": "app.big"})
            .await
            .unwrap()
            .unwrap();
        let uuid = coll.get("uuid").unwrap().clone();
        let at = bson::Timestamp {
            time: 1,
            increment: 900,
        };
        for filter in [
            doc! {},
            doc! {"ns": "app.big"},
            doc! {"uuid": uuid.clone(), "lastmod": {"$gte": at}},
            doc! {"jumbo": true},
            doc! {"ns": {"$in": ["app.r"]}},
        ] {
            let mut lazy = read(&client, filter.clone(), FindOptions::default()).await;
            let sorted = FindOptions::builder().sort(doc! {"min": 1}).build();
            let mut built = read(&client, filter.clone(), sorted).await;
            for docs in [&mut lazy, &mut built] {
                docs.sort_by_key(|d| d.get_object_id("_id").unwrap());
            }
            assert_eq!(lazy.len(), built.len(), "{v} {filter}");
            let differ = lazy.iter().zip(&built).find(|(a, b)| a != b);
            assert!(differ.is_none(), "{v} {filter}: {differ:?}");
        }
        server.shutdown().await;
    }
}
