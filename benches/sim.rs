//! Simulator benchmarks: simulated inserts per second (ascending and hashed workloads), and a
//! scale scenario of 1,000 shards and 1,000,000 chunks (set-up time, time per balancer round,
//! memory). Run: `cargo bench --bench sim`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use shardtop::model::{
    ChunkInfo, ChunkStats, ChunkVersion, KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey,
};
use shardtop::sim::cluster::{Cluster, Collection, Settings, ShardState};
use shardtop::sim::{ServerVersion, Simulator, scenario};

const INSERTS: u64 = 1_000_000;

fn workload(key: &str, fields: &str, version: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "bench", "description": "d", "seedPassage": "p", "serverVersion": "{version}", "shards": 3,
            "collections": [{{"ns": "db.c", "key": {key}}}],
            "workloads": [{{"ns": "db.c", "rate": {INSERTS}, "count": {INSERTS}, "docSize": {{"min": 200, "max": 400}}, "fields": {fields}}}],
            "until": 1}}"#
    );
    Simulator::from_scenario(&scenario::parse(&text).unwrap(), 1, None).unwrap()
}

fn inserts(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulated inserts");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(INSERTS));
    let cases = [
        (
            "ascending ObjectId, 8.0",
            r#"{"_id": 1}"#,
            r#"{"_id": {"objectId": {}}}"#,
            "8.0",
        ),
        (
            "ascending ObjectId, 5.0 (auto-split)",
            r#"{"_id": 1}"#,
            r#"{"_id": {"objectId": {}}}"#,
            "5.0",
        ),
        (
            "hashed usernames, 8.0",
            r#"{"username": "hashed"}"#,
            r#"{"username": {"alphabetical": {}}}"#,
            "8.0",
        ),
    ];
    for (name, key, fields, version) in cases {
        group.bench_function(name, |b| {
            b.iter_batched(
                || workload(key, fields, version),
                |mut sim| {
                    sim.run_until(1_000);
                    black_box(sim.take_events().len())
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// 1,000 shards, 1,000,000 chunks of 1 MiB on an `{_id: 1}` Int64 key, the first 100 shards
/// holding twice as many chunks as the rest, so the balancer has work.
fn scale_cluster() -> Simulator {
    let shards = 1000u32;
    let pattern = KeyPattern::parse_json(r#"{"_id": 1}"#).unwrap();
    let mut chunks = Vec::with_capacity(1_000_000);
    chunks.push((
        pattern.global_min(),
        ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, 0)),
    ));
    let weights: Vec<u32> = (0..shards).map(|s| if s < 100 { 2 } else { 1 }).collect();
    let total: u32 = weights.iter().sum();
    let mut owner = Vec::with_capacity(1_000_000);
    for (s, w) in weights.iter().enumerate() {
        let n = 1_000_000u64 * u64::from(*w) / u64::from(total);
        owner.extend(std::iter::repeat_n(s as u32, n as usize));
    }
    owner.resize(1_000_000, shards - 1);
    for i in 1..1_000_000u32 {
        chunks.push((
            ShardKey::single(KeyValue::Int64(i64::from(i) * 1000)),
            ChunkInfo::new(ShardIdx(owner[i as usize]), ChunkVersion::new(1, i)),
        ));
    }
    for (k, (_, info)) in chunks.iter_mut().enumerate() {
        info.shard = ShardIdx(owner[k]);
        info.stats = ChunkStats::new(1000, 1 << 20, 0);
    }
    let table = RoutingTable::from_chunks(chunks, pattern.global_max()).unwrap();
    let version = ServerVersion::V8_0;
    let cluster = Cluster {
        version,
        shards: (0..shards as usize)
            .map(|i| ShardState {
                shard: shardtop::model::Shard::new(shardtop::model::Shard::default_name(i)),
                capacity: 1.0,
                removed: false,
            })
            .collect(),
        settings: Settings {
            chunk_size_bytes: 1 << 20,
            balancer_enabled: true,
            active_window: None,
            migration_bytes_per_sec: 32 << 20,
            migration_overhead_ms: 1000,
            resharding: shardtop::sim::reshard::ReshardingParams::default(),
        },
        databases: std::collections::BTreeMap::default(),
        collections: vec![Collection::new("app.big", pattern, table)],
        pending_zones: Vec::new(),
    };
    Simulator::from_cluster(cluster)
}

fn scale(c: &mut Criterion) {
    let before = rss_bytes();
    let start = Instant::now();
    let sim = scale_cluster();
    let setup = start.elapsed();
    let after = rss_bytes();
    eprintln!(
        "scale: 1,000 shards × 1,000,000 chunks: set-up {:.2} s, resident memory +{} MiB ({} bytes/chunk)",
        setup.as_secs_f64(),
        (after.saturating_sub(before)) >> 20,
        after.saturating_sub(before) / 1_000_000
    );
    let mut group = c.benchmark_group("scale 1000 shards × 1M chunks");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function(
        "one balancer round (selection + starting migrations)",
        |b| {
            b.iter_batched(
                || sim.clone(),
                |mut s| {
                    s.balancer_round_now();
                    black_box(s.balancer.in_flight.len())
                },
                BatchSize::PerIteration,
            );
        },
    );
    group.bench_function("one balancer round and its commits", |b| {
        b.iter_batched(
            || sim.clone(),
            |mut s| {
                s.balancer_round_now();
                let n = s.balancer.in_flight.len();
                s.run_until(10_000);
                black_box((n, s.balancer.completed))
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, inserts, scale);
criterion_main!(benches);
