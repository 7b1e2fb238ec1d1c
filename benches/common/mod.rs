//! Shared set-ups of the benchmarks.
#![allow(dead_code)]

use shardtop::cluster::ServerVersion;
use shardtop::cluster::{Cluster, Collection, Settings, ShardState};
use shardtop::model::{
    ChunkInfo, ChunkStats, ChunkVersion, KeyPattern, KeyValue, RoutingTable, ShardIdx, ShardKey,
};
use shardtop::sim::Simulator;

/// 1,000 shards, 1,000,000 chunks of 1 MiB on an `{_id: 1}` Int64 key, the first 100 shards
/// holding twice as many chunks as the rest, so the balancer has work.
pub fn scale_cluster() -> Simulator {
    scale_cluster_of(1000, 1_000_000)
}

/// [`scale_cluster`] at another scale: `shards` shards, `n` chunks of 1 MiB, the first tenth
/// of the shards holding twice as many chunks as the rest.
pub fn scale_cluster_of(shards: u32, n: u32) -> Simulator {
    let pattern = KeyPattern::parse_json(r#"{"_id": 1}"#).unwrap();
    let heavy = shards / 10;
    let mut chunks = Vec::with_capacity(n as usize);
    chunks.push((
        pattern.global_min(),
        ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, 0)),
    ));
    let weights: Vec<u32> = (0..shards).map(|s| if s < heavy { 2 } else { 1 }).collect();
    let total: u32 = weights.iter().sum();
    let mut owner = Vec::with_capacity(n as usize);
    for (s, w) in weights.iter().enumerate() {
        let k = u64::from(n) * u64::from(*w) / u64::from(total);
        owner.extend(std::iter::repeat_n(s as u32, k as usize));
    }
    owner.resize(n as usize, shards - 1);
    for i in 1..n {
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
        before_6_0_3: false,
        shards: (0..shards as usize)
            .map(|i| ShardState {
                shard: shardtop::model::Shard::new(shardtop::model::Shard::default_name(i)),
                capacity: 1.0,
                removed: false,
                unlisted: false,
            })
            .collect(),
        settings: Settings {
            chunk_size_bytes: 1 << 20,
            balancer_enabled: true,
            auto_split_only: false,
            active_window: None,
            window_rejected: None,
            auto_merge: true,
            attempt_to_balance_jumbo_chunks: false,
            migration_bytes_per_sec: 32 << 20,
            migration_overhead_ms: 1000,
            resharding: shardtop::cluster::resharding::ReshardingParams::default(),
            orphan_cleanup_delay_secs: None,
            balancer_migrations_throttling_ms: None,
        },
        databases: std::collections::BTreeMap::default(),
        collections: vec![Collection::new("app.big", pattern, table)],
        pending_zones: Vec::new(),
        now_ms: 0,
        balancer: shardtop::cluster::balancer::BalancerState::default(),
        next_migration_id: 1,
        failed_actions: Vec::new(),
        poll_notes: Vec::new(),
    };
    Simulator::from_cluster(cluster)
}

/// A scenario of 4 shards, balancer off, and `app.big` sharded on `{h: "hashed"}` with
/// `chunks` initial chunks (the 20,000-chunk scenario of `tests/live/watch/watch_serve.rs`, scaled up).
pub fn big_hashed_scenario(chunks: u32) -> String {
    format!(
        r#"{{"name": "big", "description": "d", "seedPassage": "p", "shards": 4, "balancer": false,
            "collections": [{{"ns": "app.big", "key": {{"h": "hashed"}}, "numInitialChunks": {chunks}}}], "until": 1}}"#
    )
}

/// The simulator of [`big_hashed_scenario`] on 7.0 (`onCurrentShardSince` in every chunk).
pub fn big_hashed_sim(chunks: u32) -> Simulator {
    let sc = shardtop::sim::scenario::parse(&big_hashed_scenario(chunks)).unwrap();
    let sim = Simulator::from_scenario(&sc, 1, Some("7.0".parse().unwrap())).unwrap();
    assert_eq!(sim.cluster.collections[0].table.len(), chunks as usize);
    sim
}

/// A two-worker runtime (this machine has two cores) for the benches that talk to `serve`.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// `serve` (a child of `bin`, in `dir`) of [`big_hashed_scenario`] at `chunks` chunks, paused,
/// answering as 7.0: its URI and the child (kill it when done). Its stderr is drained.
pub fn serve_big_hashed(
    bin: &str,
    dir: &std::path::Path,
    chunks: u32,
) -> (String, std::process::Child) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    std::fs::write(dir.join("big.json"), big_hashed_scenario(chunks)).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut serve = Command::new(bin)
        .args(["serve", "--paused", "--server-version", "7.0", "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .args(["--scenario-file", "big.json"])
        .current_dir(dir)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(serve.stderr.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    assert!(line.contains("listening"), "{line}");
    std::thread::spawn(move || lines.for_each(drop));
    let uri = format!("mongodb://127.0.0.1:{port}/?directConnection=true");
    (uri, serve)
}
