//! What `sh.status()` costs on `shardtop serve` (issue 16): mongosh's reads of the config
//! database (`packages/shell-api/src/helpers.ts`), sent through the real driver, on a
//! 1,000-chunk and a 1,000,000-chunk collection — target: the large one at most 2 × the small
//! one. And the generic path: a `$match` + `$group` over generated `config.chunks` documents
//! that must be built (a match the routing-table answer does not take) — target ≥ 1,000,000
//! documents/s.
//!
//! Run: `cargo bench --bench serve_status -- --warm-up-time 1 --measurement-time 5`.
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::time::Instant;

use bson::{Bson, Document, doc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::TryStreamExt;
use shardtop::serve::{ServeOptions, Server, start};
use shardtop::sim::Simulator;

mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

async fn serve(sim: Simulator) -> (Server, mongodb::Client) {
    let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut opts = ServeOptions::new(listen, sim);
    opts.paused = true;
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://127.0.0.1:{}/?directConnection=true",
        server.local_addr().port()
    );
    (server, mongodb::Client::with_uri_str(&uri).await.unwrap())
}

async fn all(client: &mongodb::Client, coll: &str, filter: Document) -> Vec<Document> {
    client
        .database("config")
        .collection::<Document>(coll)
        .find(filter)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

async fn aggregate(client: &mongodb::Client, coll: &str, pipeline: Vec<Document>) -> Vec<Document> {
    client
        .database("config")
        .collection::<Document>(coll)
        .aggregate(pipeline)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// mongosh's `sh.status()` reads, in its order; returns the chunks it counted.
async fn sh_status(client: &mongodb::Client) -> i64 {
    all(client, "version", doc! {}).await;
    all(client, "shards", doc! {}).await;
    all(client, "mongos", doc! {}).await;
    for id in ["autosplit", "automerge", "balancer", "balancer"] {
        all(client, "settings", doc! {"_id": id}).await;
    }
    let admin = client.database("admin");
    admin.run_command(doc! {"balancerStatus": 1}).await.unwrap();
    all(client, "locks", doc! {"state": 2}).await;
    all(client, "actionlog", doc! {"what": "balancer.round"}).await;
    all(client, "changelog", doc! {"what": "moveChunk.from"}).await;
    all(client, "databases", doc! {}).await;
    let colls = all(
        client,
        "collections",
        doc! {"dropped": {"$ne": true}, "unsplittable": {"$ne": true}},
    )
    .await;
    admin
        .aggregate(vec![doc! {"$shardedDataDistribution": {}}])
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    let mut counted = 0;
    for c in colls {
        let m = doc! {"uuid": c.get("uuid").cloned().unwrap_or(Bson::Null)};
        let per_shard = aggregate(
            client,
            "chunks",
            vec![
                doc! {"$match": m},
                doc! {"$group": {"_id": "$shard", "cnt": {"$sum": 1}}},
                doc! {"$project": {"_id": 0, "shard": "$_id", "nChunks": "$cnt"}},
                doc! {"$sort": {"shard": 1}},
            ],
        )
        .await;
        counted += per_shard
            .iter()
            .map(|d| i64::from(d.get_i32("nChunks").unwrap()))
            .sum::<i64>();
        all(client, "tags", doc! {"ns": c.get_str("_id").unwrap()}).await;
    }
    counted
}

fn status(c: &mut Criterion) {
    let rt = common::runtime();
    let mut group = c.benchmark_group("serve sh.status");
    group.sample_size(10);
    for chunks in [1_000_u32, 1_000_000] {
        let (server, client) = rt.block_on(serve(common::big_hashed_sim(chunks)));
        group.bench_function(format!("mongosh reads, {chunks} chunks"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        // And config.system.sessions's one chunk.
                        assert_eq!(sh_status(&client).await, i64::from(chunks) + 1);
                    }
                    start.elapsed()
                })
            });
        });
        rt.block_on(server.shutdown());
    }
    group.finish();
}

fn generic_group(c: &mut Criterion) {
    const CHUNKS: u32 = 1_000_000;
    let rt = common::runtime();
    let (server, client) = rt.block_on(serve(common::big_hashed_sim(CHUNKS)));
    let uuid = rt
        .block_on(all(&client, "collections", doc! {}))
        .first()
        .and_then(|c| c.get("uuid").cloned())
        .unwrap();
    let mut group = c.benchmark_group("serve config.chunks $match + $group");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(u64::from(CHUNKS)));
    group.bench_function("built documents, 1,000,000 chunks", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let rows = aggregate(
                        &client,
                        "chunks",
                        vec![
                            doc! {"$match": {"uuid": uuid.clone(), "jumbo": {"$ne": true}}},
                            doc! {"$group": {"_id": "$shard", "cnt": {"$sum": 1}}},
                        ],
                    )
                    .await;
                    assert!(!rows.is_empty());
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    rt.block_on(server.shutdown());
}

criterion_group!(benches, status, generic_group);
criterion_main!(benches);
