//! One poll of a quiet cluster of 3,000 collections (issue 31): the live poller
//! (`shardtop watch`) against `shardtop serve` (three shards, 3,000 one-chunk collections,
//! nothing changing), before and after `balancerCollectionStatus` was paced. "Before" is the
//! poller with its budget set to every collection (`balancerCollectionStatus` for each of them at
//! every poll, as until issue 31); "after" is the default budget of
//! `shardtop::live::compliance::ASK_PER_POLL` a poll.
//!
//! Measured: the time of one poll after the first (the routing tables are cached; every poll
//! still reads the collections' chunk changes). Counted: the commands the poller sent in one
//! quiet poll, from the command log of a second server (`serve --log-commands`; its writes would
//! slow the timed server, so the timing runs against one without a log). The driver's own
//! monitoring (`hello`/`isMaster` heartbeats) is left out of the count.
//!
//! Run: `cargo bench --bench live_poll -- --warm-up-time 1 --measurement-time 5`.
//!
//! Known limit: `serve` answers each per-collection `config.chunks` `find` in about 2 s when it
//! holds 3,000 collections, so the first poll does not finish in a useful time; until `serve`
//! finds a collection's chunks without that cost, the commands per poll are counted by
//! `tests/live/poll_cost.rs` against the test mongos.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use shardtop::live::client::LiveClient;
use shardtop::live::compliance::ASK_PER_POLL;
use shardtop::live::poller::{Poller, now_ms};

mod common;

const COLLECTIONS: usize = 3_000;

/// Three shards, balancer off, `db.c0000` … `db.c2999` sharded on `{k: 1}`, one chunk each.
fn quiet_scenario() -> String {
    let collections: Vec<String> = (0..COLLECTIONS)
        .map(|i| format!(r#"{{"ns": "db.c{i:04}", "key": {{"k": 1}}}}"#))
        .collect();
    format!(
        r#"{{"name": "quiet", "description": "d", "seedPassage": "p", "shards": 3, "balancer": false,
            "collections": [{}], "until": 1}}"#,
        collections.join(", ")
    )
}

/// `shardtop serve` of [`quiet_scenario`] in a child process, killed on drop.
struct Served {
    child: Child,
    uri: String,
    log: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start(log_commands: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("quiet.json");
        std::fs::write(&file, quiet_scenario()).unwrap();
        let log = log_commands.then(|| dir.path().join("commands.jsonl"));
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_shardtop"));
        cmd.args(["serve", "--paused", "--server-version", "7.0", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--scenario-file")
            .arg(&file);
        if let Some(log) = &log {
            cmd.arg("--log-commands").arg(log);
        }
        let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let line = lines.next().unwrap().unwrap();
        assert!(line.contains("listening"), "{line}");
        std::thread::spawn(move || lines.for_each(drop));
        Self {
            child,
            uri: format!("mongodb://127.0.0.1:{port}/?directConnection=true"),
            log,
            _dir: dir,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A poller of `uri` with `budget` `balancerCollectionStatus` commands a poll, after its first
/// (full) poll.
async fn polled_once(uri: &str, budget: usize) -> Poller {
    let client = LiveClient::connect(uri, Duration::from_secs(30))
        .await
        .unwrap();
    let mut p = Poller::new(client);
    p.set_compliance_budget(budget);
    let polled = p.poll(now_ms()).await.unwrap();
    assert_eq!(polled.state.collections.len(), COLLECTIONS);
    p
}

/// The commands in the log after its first `from` lines, by name (heartbeats left out).
fn commands_since(log: &Path, from: usize) -> (usize, BTreeMap<String, usize>) {
    let text = std::fs::read_to_string(log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut counts = BTreeMap::new();
    for line in &lines[from..] {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(name) = v["command"].as_str() else {
            continue; // a connection event
        };
        if name != "hello" && name != "isMaster" {
            *counts.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    (lines.len(), counts)
}

/// Commands one quiet poll sends with `budget` (the second poll of a new poller).
fn count(rt: &tokio::runtime::Runtime, logged: &Served, budget: usize) -> BTreeMap<String, usize> {
    let log = logged.log.as_ref().unwrap();
    rt.block_on(async {
        let mut p = polled_once(&logged.uri, budget).await;
        let (from, _) = commands_since(log, 0);
        p.poll(now_ms()).await.unwrap();
        commands_since(log, from).1
    })
}

fn quiet_poll(c: &mut Criterion) {
    let rt = common::runtime();
    let budgets = [
        (
            "before: balancerCollectionStatus for every collection",
            usize::MAX,
        ),
        (
            "after: at most 16 balancerCollectionStatus a poll",
            ASK_PER_POLL,
        ),
    ];
    {
        let logged = Served::start(true);
        for (name, budget) in budgets {
            let counts = count(&rt, &logged, budget);
            let total: usize = counts.values().sum();
            eprintln!("live_poll: {name}: one quiet poll sent {total} commands: {counts:?}");
        }
    }
    let served = Served::start(false);
    let mut group = c.benchmark_group("one poll of a quiet 3,000-collection cluster");
    group.sample_size(10);
    for (name, budget) in budgets {
        let mut watching = rt.block_on(polled_once(&served.uri, budget));
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        watching.poll(now_ms()).await.unwrap();
                    }
                    start.elapsed()
                })
            });
        });
    }
    group.finish();
}

criterion_group!(benches, quiet_poll);
criterion_main!(benches);
