#![allow(clippy::unwrap_used)]
//! `config.chunks` reads of one collection (by `uuid`, before 5.0 by `ns`) sorted on `min`,
//! `max` or `lastmod` answered in the routing table's order — the same documents as the
//! blocking sort gives — and found among thousands of collections; the blocking sort's memory
//! limit (100 MB, then QueryExceededMemoryLimitNoDiskUseAllowed unless disk use is allowed).

use crate::common;

use bson::{Bson, Document, doc};
use futures::TryStreamExt;
use mongodb::options::FindOptions;
use shardtop::cluster::ServerVersion;
use shardtop::model::{ChunkInfo, ChunkVersion, KeyValue, RoutingTable, ShardIdx, ShardKey};
use shardtop::sim::{Simulator, scenario};

fn sim(version: &str, colls: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "s", "description": "", "seedPassage": "", "shards": 3,
        "collections": [{colls}], "until": 1}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    let version: ServerVersion = version.parse().unwrap();
    // Laid out by 7.0's rule (8.0 ignores numInitialChunks, older lines cap it), read in
    // `version`'s shape.
    let mut sim = Simulator::from_scenario(&sc, 1, Some(ServerVersion::V7_0)).unwrap();
    sim.cluster.version = version;
    sim
}

async fn read(client: &mongodb::Client, filter: Document, opts: FindOptions) -> Vec<Document> {
    client
        .database("config")
        .collection::<Document>("chunks")
        .find(filter)
        .with_options(opts)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// Sorted reads of one collection equal the blocking sort of the same documents (a filter
/// with `$in` names no single collection, so it takes the blocking path), in every shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_ordered_reads_equal_the_blocking_sort() {
    for v in ["4.4", "5.0", "7.0", "8.0"] {
        let mut s = sim(
            v,
            r#"{"ns": "app.big", "key": {"h": "hashed"}, "numInitialChunks": 700},
               {"ns": "app.r", "key": {"r": 1, "s": 1}}"#,
        );
        // Versions out of key order (and two alike), so lastmod order is not key order.
        let table = &s.cluster.collections[0].table;
        let n = table.len() as u32;
        let chunks = table
            .iter()
            .enumerate()
            .map(|(i, ch)| {
                let mut info = *ch.info;
                let minor = (i as u32 * 389) % n;
                info.version = ChunkVersion::new(1 + minor % 3, minor.max(1));
                (ch.min.clone(), info)
            })
            .collect();
        let max = table.global_max().clone();
        s.cluster.collections[0].table = RoutingTable::from_chunks(chunks, max).unwrap();
        s.cluster.collections[0].table.set_jumbo(3, true);
        let (server, client) = common::serve_paused(s).await;
        let c = common::config_collection(&client, "app.big").await.unwrap();
        let (key, value) = if v == "4.4" {
            ("ns", Bson::String("app.big".into()))
        } else {
            ("uuid", c.get("uuid").unwrap().clone())
        };
        let sorts = [
            doc! {"min": 1},
            doc! {"min": -1},
            doc! {"max": -1},
            doc! {"max": 1.0},
            doc! {"lastmod": 1},
            doc! {"lastmod": -1},
        ];
        for sort in sorts {
            for (skip, limit, batch) in
                [(0, None, None), (3, Some(5), None), (0, Some(20), Some(7))]
            {
                let opts = |sort: &Document| {
                    FindOptions::builder()
                        .sort(sort.clone())
                        .skip(skip)
                        .limit(limit)
                        .batch_size(batch)
                        .build()
                };
                let one = doc! {key: value.clone()};
                let blocking = doc! {key: {"$in": [value.clone()]}};
                let lazy = read(&client, one.clone(), opts(&sort)).await;
                // The aggregation `$match`, `$sort`, `$skip`, `$limit` reads the same documents.
                let mut pipeline = vec![doc! {"$match": one}, doc! {"$sort": sort.clone()}];
                if skip > 0 {
                    pipeline.push(doc! {"$skip": skip as i64});
                }
                if let Some(l) = limit {
                    pipeline.push(doc! {"$limit": l});
                }
                let aggregated: Vec<Document> = client
                    .database("config")
                    .collection::<Document>("chunks")
                    .aggregate(pipeline)
                    .await
                    .unwrap()
                    .try_collect()
                    .await
                    .unwrap();
                let built = read(&client, blocking, opts(&sort)).await;
                let want = limit.map_or(700, |l| l as usize);
                assert_eq!(lazy.len(), want, "{v} {sort}");
                if sort.contains_key("lastmod") {
                    // Ties in lastmod may come in any order: compare the lastmods and the sets.
                    let lm = |d: &[Document]| -> Vec<Bson> {
                        d.iter()
                            .map(|x| x.get("lastmod").unwrap().clone())
                            .collect()
                    };
                    assert_eq!(lm(&lazy), lm(&built), "{v} {sort} {skip:?} {limit:?}");
                    assert_eq!(lm(&aggregated), lm(&built), "{v} {sort} aggregate");
                } else {
                    assert_eq!(lazy, built, "{v} {sort} {skip:?} {limit:?}");
                    assert_eq!(aggregated, built, "{v} {sort} aggregate");
                }
            }
        }
        // A uuid no collection has: nothing, as from an index.
        if v != "4.4" {
            let none = bson::Binary {
                subtype: bson::spec::BinarySubtype::Uuid,
                bytes: vec![7; 16],
            };
            let sorted = FindOptions::builder().sort(doc! {"min": 1}).build();
            assert!(read(&client, doc! {"uuid": none}, sorted).await.is_empty());
        }
        server.shutdown().await;
    }
}

/// Among 3,000 one-chunk collections each read by uuid finds its one chunk (the index from uuid
/// to collection, rebuilt when a collection is new).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_by_uuid_among_thousands_of_collections() {
    let colls: Vec<String> = (0..3000)
        .map(|i| format!(r#"{{"ns": "db{}.c{i:04}", "key": {{"k": 1}}}}"#, i % 7))
        .collect();
    let s = sim("8.0", &colls.join(","));
    let (server, client) = common::serve_paused(s).await;
    let all: Vec<Document> =
        crate::common::find_all(&client, "config", "collections", doc! {}).await;
    assert_eq!(all.len(), 3001, "and config.system.sessions");
    for c in all.iter().step_by(97) {
        let uuid = c.get("uuid").unwrap().clone();
        for opts in [
            FindOptions::default(),
            FindOptions::builder().sort(doc! {"min": 1}).build(),
        ] {
            let got = read(&client, doc! {"uuid": uuid.clone()}, opts).await;
            assert_eq!(got.len(), 1, "{}", c.get_str("_id").unwrap());
            assert_eq!(got[0].get("uuid"), Some(&uuid));
        }
    }
    // A collection sharded afterwards is found too.
    common::admin(
        &client,
        doc! {"shardCollection": "new.one", "key": {"k": 1}},
    )
    .await
    .unwrap();
    let c = common::config_collection(&client, "new.one").await.unwrap();
    let got = read(
        &client,
        doc! {"uuid": c.get("uuid").unwrap().clone()},
        FindOptions::default(),
    )
    .await;
    assert_eq!(got.len(), 1);
    server.shutdown().await;
}

/// `app.big` on `{s: 1}` in 16,000 chunks whose bounds are strings of 4,000 bytes, spread
/// over the three shards: about 130 MB of chunk documents (each holds two bounds), past the
/// blocking sort's 100 MB with few documents to build (600,000 hashed chunks of about 175
/// bytes each would say the same and took 40 s a version in a debug build).
fn big_chunks(version: &str) -> Simulator {
    const CHUNKS: usize = 16_000;
    let mut s = sim(version, r#"{"ns": "app.big", "key": {"s": 1}}"#);
    let table = &s.cluster.collections[0].table;
    let (min, max) = (table.global_min().clone(), table.global_max().clone());
    let pad = "x".repeat(3_992);
    let chunks = (0..CHUNKS)
        .map(|i| {
            let bound = if i == 0 {
                min.clone()
            } else {
                ShardKey::single(KeyValue::String(format!("{i:08}{pad}").into()))
            };
            let info = ChunkInfo::new(ShardIdx((i % 3) as u32), ChunkVersion::new(1, i as u32));
            (bound, info)
        })
        .collect();
    s.cluster.collections[0].table = RoutingTable::from_chunks(chunks, max).unwrap();
    s
}

/// A blocking sort holding more than 100 MB fails as mongod's does unless disk use is allowed
/// (by default from 6.0); with a limit only the best documents are held, so it answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_sorts_past_100_mb_fail_without_disk_use() {
    for v in ["5.0", "7.0"] {
        let (server, client) = common::serve_paused(big_chunks(v)).await;
        let config = client.database("config");
        let run = |extra: Document| {
            let mut cmd = doc! {"find": "chunks", "filter": {}, "sort": {"shard": 1, "min": -1}};
            cmd.extend(extra);
            let config = config.clone();
            async move { config.run_command(cmd).await }
        };
        let extra = if v == "5.0" {
            doc! {}
        } else {
            doc! {"allowDiskUse": false}
        };
        let Err(refused) = run(extra).await else {
            panic!("{v}: a sort of 130 MB of chunk documents answered");
        };
        assert_eq!(common::code_of(&refused), 292, "{v}");
        assert!(
            refused.to_string().contains(
                "Sort exceeded memory limit of 104857600 bytes, but did not opt in to external \
                 sorting."
            ),
            "{refused}"
        );
        // The same sort as an aggregation: the same limit, in the aggregation's words.
        let mut agg = doc! {
            "aggregate": "chunks",
            "pipeline": [{"$match": {}}, {"$sort": {"shard": 1, "min": -1}}],
            "cursor": {},
        };
        if v != "5.0" {
            agg.insert("allowDiskUse", false);
        }
        let refused = config.run_command(agg.clone()).await.unwrap_err();
        assert_eq!(common::code_of(&refused), 292, "{v}");
        assert!(
            refused.to_string().contains(
                "PlanExecutor error during aggregation :: caused by :: Sort exceeded memory \
                 limit of 104857600 bytes"
            ),
            "{refused}"
        );
        if v == "7.0" {
            // With a `$limit` after the `$sort`, only the best are held (top-k).
            agg.insert(
                "pipeline",
                vec![
                    Bson::Document(doc! {"$sort": {"shard": 1, "min": -1}}),
                    Bson::Document(doc! {"$limit": 3}),
                    Bson::Document(doc! {"$project": {"shard": 1}}),
                ],
            );
            let top = config.run_command(agg).await.unwrap();
            let first = common::first_batch(&top);
            assert_eq!(first.len(), 3);
            assert_eq!(first[0].get_str("shard").unwrap(), "shard0000");
            assert_eq!(first[0].len(), 2, "_id and shard: {}", first[0]);
        }
        if v == "7.0" {
            let top = run(doc! {"limit": 3}).await.unwrap();
            let first = common::first_batch(&top);
            assert_eq!(first.len(), 3);
            assert_eq!(first[0].get_str("shard").unwrap(), "shard0000");
        }
        server.shutdown().await;
    }
}
