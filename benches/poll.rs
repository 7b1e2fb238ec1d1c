//! What one poll of a quiet 3,000-collection cluster costs in time (issue 31): the poller against
//! the test mongos of `tests/live/real/real_mongos.rs` (which answers from documents held in memory),
//! on a generated 7.0.24 cluster of three shards and 3,000 one-chunk collections. Two cases: the
//! first poll (a new poller: every routing table loaded) and a quiet poll (nothing changed since
//! the last one: the routing caches are current), each with `balancerCollectionStatus` paced (at
//! most 16 a poll) as `watch` sends it, and for every collection at every poll as before.
//!
//! Owns: the generated cluster and the timings. May not touch: the poller's rules.
//!
//! Run: `cargo bench --bench poll` (short: 10 samples, 5 s of measurement a case).
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;

#[path = "../tests/live/real/real_mongos.rs"]
#[allow(dead_code)]
mod real_mongos;

/// The tests' shared connection loop, at the path `real_mongos` names it by.
#[path = "../tests/common"]
mod common {
    pub mod wire_loop;
}

#[path = "../tests/live/quiet_cluster.rs"]
mod quiet_cluster;

use quiet_cluster::{COLLECTIONS, quiet_cluster};

async fn poller(uri: &str, budget: usize) -> Poller {
    let client = LiveClient::connect(uri, Duration::from_secs(30))
        .await
        .unwrap();
    let mut p = Poller::new(client);
    p.set_compliance_budget(budget);
    p
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mongos = rt.block_on(real_mongos::start(quiet_cluster()));
    let uri = mongos.uri.clone();
    let mut group = c.benchmark_group("poll_3000_collections");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let paced = shardtop::live::compliance::ASK_PER_POLL;
    for (name, budget) in [("paced", paced), ("every_collection", usize::MAX)] {
        group.bench_function(format!("first_poll/{name}"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut p = poller(&uri, budget).await;
                        let at = std::time::Instant::now();
                        let polled = p.poll(0).await.unwrap();
                        total += at.elapsed();
                        assert_eq!(polled.state.collections.len(), COLLECTIONS);
                    }
                    total
                })
            });
        });
        let mut p = rt.block_on(async {
            let mut p = poller(&uri, budget).await;
            p.poll(0).await.unwrap();
            p
        });
        let mut now = 0;
        group.bench_function(format!("quiet_poll/{name}"), |b| {
            b.iter(|| {
                now += 2_000;
                rt.block_on(async {
                    let polled = p.poll(now).await.unwrap();
                    assert_eq!(polled.state.collections.len(), COLLECTIONS);
                });
            });
        });
    }
    group.finish();
    assert!(mongos.unknown.lock().unwrap().is_empty());
}

criterion_group!(benches, bench);
criterion_main!(benches);
