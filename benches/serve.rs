//! `shardtop serve` through the real `mongodb` driver on loopback, with the server in this
//! process (issue 7). Targets: a driver reads all of a 1,000,000-chunk `config.chunks` (`find`
//! and its `getMore`s) at ≥ 200,000 documents/s; one connection's `insert_one` loop reaches
//! ≥ 10,000 inserts/s while the simulator (running, not paused) counts every one.
//!
//! Run: `cargo bench --bench serve -- --warm-up-time 1 --measurement-time 5`.
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bson::{Document, doc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::TryStreamExt;
use shardtop::serve::{ServeOptions, Server, start};
use shardtop::sim::{Simulator, scenario};

mod common;

// The allocator of the shipped binary (src/main.rs), so the in-process server is measured as it runs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CHUNKS: u32 = 1_000_000;
const INSERTS: u64 = 10_000;

async fn serve(sim: Simulator, paused: bool) -> (Server, mongodb::Client) {
    let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut opts = ServeOptions::new(listen, sim);
    opts.paused = paused;
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://127.0.0.1:{}/?directConnection=true",
        server.local_addr().port()
    );
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    (server, client)
}

/// Reads every chunk document through the driver's cursor; returns how many came.
async fn read_all(client: &mongodb::Client) -> u64 {
    let mut cursor = client
        .database("config")
        .collection::<Document>("chunks")
        .find(doc! {})
        .await
        .unwrap();
    let mut n = 0;
    while let Some(d) = cursor.try_next().await.unwrap() {
        assert!(d.contains_key("min"));
        n += 1;
    }
    n
}

/// Reads every chunk document as raw BSON (no conversion into `Document` on the client):
/// what the server delivers, without the driver's per-field deserialization.
async fn read_all_raw(client: &mongodb::Client) -> u64 {
    let mut cursor = client
        .database("config")
        .collection::<bson::RawDocumentBuf>("chunks")
        .find(doc! {})
        .await
        .unwrap();
    let mut n = 0;
    while let Some(d) = cursor.try_next().await.unwrap() {
        assert!(d.get("min").unwrap().is_some());
        n += 1;
    }
    n
}

/// Every document of `config.chunks`: the collection's and `config.system.sessions`' one chunk.
const ALL_CHUNKS: u64 = CHUNKS as u64 + 1;

fn read_chunks(c: &mut Criterion) {
    let rt = common::runtime();
    let built = Instant::now();
    let sim = common::big_hashed_sim(CHUNKS);
    eprintln!(
        "serve: 1,000,000 hashed chunks built in {:.2} s",
        built.elapsed().as_secs_f64()
    );
    let (server, client) = rt.block_on(serve(sim, true));
    let mut group = c.benchmark_group("serve config.chunks");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(u64::from(CHUNKS)));
    group.bench_function("driver find + getMore, 1,000,000 chunks", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    assert_eq!(read_all(&client).await, ALL_CHUNKS);
                }
                start.elapsed()
            })
        });
    });
    group.bench_function(
        "driver find + getMore, 1,000,000 chunks, raw documents",
        |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        assert_eq!(read_all_raw(&client).await, ALL_CHUNKS);
                    }
                    start.elapsed()
                })
            });
        },
    );
    group.finish();
    rt.block_on(server.shutdown());
}

/// Three shards, balancer on, `app.users` sharded on `{username: "hashed"}`, no workload.
const INSERT_CLUSTER: &str = r#"{"name": "inserts", "description": "d", "seedPassage": "p", "shards": 3,
    "collections": [{"ns": "app.users", "key": {"username": "hashed"}}], "until": 0}"#;

/// The simulator's document count of `app.users` (`count` without a query answers it).
async fn simulated_docs(client: &mongodb::Client) -> i64 {
    let r = client
        .database("app")
        .run_command(doc! {"count": "users"})
        .await
        .unwrap();
    r.get_i64("n").unwrap()
}

/// `insert_one` × `INSERTS` from one connection to a running simulator, on `rt`.
fn insert_loop(c: &mut Criterion, rt: &tokio::runtime::Runtime, label: &str) {
    let sc = scenario::parse(INSERT_CLUSTER).unwrap();
    let sim = Simulator::from_scenario(&sc, 1, Some("7.0".parse().unwrap())).unwrap();
    let (server, client) = rt.block_on(serve(sim, false));
    let users = client.database("app").collection::<Document>("users");
    let mut next = 0u64;
    let mut group = c.benchmark_group("serve inserts");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(INSERTS));
    group.bench_function(label, |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let before = simulated_docs(&client).await;
                    let start = Instant::now();
                    for _ in 0..INSERTS {
                        users
                            .insert_one(
                                doc! {"username": format!("user{next:09}"), "n": next as i64},
                            )
                            .await
                            .unwrap();
                        next += 1;
                    }
                    spent += start.elapsed();
                    // The simulator kept up: every write is in its state once acknowledged.
                    assert_eq!(simulated_docs(&client).await - before, INSERTS as i64);
                }
                spent
            })
        });
    });
    group.finish();
    rt.block_on(server.shutdown());
}

/// Two harnesses: driver and server on one thread (tokio's current-thread runtime: every
/// hand-off is a task switch), and on two worker threads, where the driver's own hand-offs
/// between its tasks and threads (about 10 context switches per insert) cap even a server that
/// does nothing at about 6,500 inserts/s on this machine.
fn inserts(c: &mut Criterion) {
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    insert_loop(
        c,
        &single,
        "insert_one × 10,000, one connection, one thread",
    );
    insert_loop(
        c,
        &common::runtime(),
        "insert_one × 10,000, one connection, two worker threads",
    );
}

criterion_group!(benches, read_chunks, inserts);
criterion_main!(benches);
