//! The live poller (`shardtop watch`) against `shardtop serve` holding 1,000,000 chunks (issue
//! 8). Targets: the first full load under 10 s and under 400 MB at its peak; an incremental poll
//! after 10 changed chunks (splits through the driver) under 50 ms.
//!
//! The server runs as a child process (`shardtop serve --scenario-file … --paused`), so the
//! counting allocator of this binary sees the poller's side only: the driver, the reply
//! documents, the parsed chunks, the routing cache and the model cluster the poll returns.
//! The server's own peak (VmHWM of the child) is printed beside it.
//!
//! Run: `cargo bench --bench live -- --warm-up-time 1 --measurement-time 5`.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bson::doc;
use criterion::{Criterion, criterion_group, criterion_main};
use shardtop::cluster::Cluster;
use shardtop::live::client::LiveClient;
use shardtop::live::poller::{Poller, now_ms};
use shardtop::model::KeyValue;

mod common;

#[global_allocator]
static COUNTING: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

const CHUNKS: u32 = 1_000_000;
const CHANGED: usize = 10;

/// `shardtop serve` in a child process, killed on drop.
struct Served {
    child: Child,
    uri: String,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start(chunks: u32) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.json");
        std::fs::write(&file, common::big_hashed_scenario(chunks)).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_shardtop"))
            .args(["serve", "--paused", "--server-version", "7.0", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--scenario-file")
            .arg(&file)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let line = lines.next().unwrap().unwrap();
        assert!(line.contains("listening"), "{line}");
        // Keep reading the child's stderr (a closed pipe would fail its next line).
        std::thread::spawn(move || lines.for_each(drop));
        eprintln!(
            "live: serve with {chunks} chunks ready in {:.2} s",
            started.elapsed().as_secs_f64()
        );
        Self {
            child,
            uri: format!("mongodb://127.0.0.1:{port}/?directConnection=true"),
            _dir: dir,
        }
    }

    /// The child's peak resident memory (VmHWM), in MiB.
    fn peak_rss_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb >> 10)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

async fn poller(uri: &str) -> Poller {
    Poller::new(
        LiveClient::connect(uri, Duration::from_secs(30))
            .await
            .unwrap(),
    )
}

/// Splits `CHANGED` chunks spread over the table of `state` in their middles, through the
/// driver; `round` picks different chunks each time (spread, so no chunk is halved to nothing).
async fn split_some(admin: &mongodb::Client, state: &Cluster, round: usize) {
    let table = &state.collections[0].table;
    let stride = table.len() / CHANGED;
    for k in 0..CHANGED {
        let ch = table.chunk(1 + k * stride + (round * 7919) % (stride - 2));
        let (KeyValue::Int64(lo), KeyValue::Int64(hi)) =
            (ch.min.get(0).unwrap(), ch.max.get(0).unwrap())
        else {
            panic!("hashed bounds are Int64: {:?}", ch.min);
        };
        let middle = lo + (hi - lo) / 2;
        admin
            .database("admin")
            .run_command(doc! {"split": "app.big", "middle": {"h": middle}})
            .await
            .unwrap();
    }
}

fn live(c: &mut Criterion) {
    let rt = common::runtime();
    let served = Served::start(CHUNKS);
    let mut group = c.benchmark_group("watch 1,000,000 chunks");
    group.sample_size(10);
    let mut worst_peak = 0usize;
    group.bench_function("first full load (one poll of a new poller)", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let mut p = poller(&served.uri).await;
                    COUNTING.reset_peak_usage();
                    let base = COUNTING.current_usage();
                    let start = Instant::now();
                    p.poll(now_ms()).await.unwrap();
                    spent += start.elapsed();
                    worst_peak = worst_peak.max(COUNTING.peak_usage() - base);
                    // And `config.system.sessions`' one chunk.
                    assert_eq!(p.fetched_chunks, CHUNKS as usize + 1);
                    assert_eq!(p.state().collections[0].table.len(), CHUNKS as usize);
                }
                spent
            })
        });
    });
    eprintln!(
        "live: first full load, peak allocated by the poller's process {:.0} MiB above its start \
         (driver, replies, parsed chunks, routing cache, the polled state); serve (child) peak RSS {} MiB",
        mib(worst_peak),
        served.peak_rss_mib()
    );
    let (mut watching, admin) = rt.block_on(async {
        let mut p = poller(&served.uri).await;
        p.poll(now_ms()).await.unwrap();
        let admin = mongodb::Client::with_uri_str(&served.uri).await.unwrap();
        (p, admin)
    });
    let mut round = 0;
    let mut worst_fetched = 0;
    group.bench_function("incremental poll after 10 splits", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let before = watching.state().collections[0].table.len();
                    split_some(&admin, watching.state(), round).await;
                    round += 1;
                    let start = Instant::now();
                    watching.poll(now_ms()).await.unwrap();
                    spent += start.elapsed();
                    let table = &watching.state().collections[0].table;
                    assert_eq!(table.len(), before + CHANGED);
                    worst_fetched = worst_fetched.max(watching.fetched_chunks);
                }
                spent
            })
        });
    });
    group.finish();
    eprintln!("live: an incremental poll fetched at most {worst_fetched} chunk documents");
}

criterion_group!(benches, live);
criterion_main!(benches);
