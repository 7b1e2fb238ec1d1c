#![allow(clippy::unwrap_used)]
//! `serve` keeps answering while slow clients and long commands run (issue 46): 300 slowloris
//! connections (a byte every 2 s, more than the 256 slots) do not keep a new client's `ping`
//! out — every probe is answered, its latency reported —, and a `ping` on a new connection is
//! answered while `config.chunks.find().sort({lastmod: -1}).limit(1)` sorts the 300,000 chunks of
//! the real binary's cluster. Probes use blocking sockets on a thread of their own. Bounds are
//! generous: a probe must answer within 2 s, while the slow thing lasts far longer (its time is
//! printed).

use crate::common;

use std::time::{Duration, Instant};

use bson::{Document, doc};
use futures::TryStreamExt;
use shardtop::serve::ServeOptions;

/// The slots these tests give the server, fewer than their slow clients: every slot is taken.
const SLOTS: usize = 256;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The longest a probe's `ping` (connect, send, reply) may take.
const PROBE_WITHIN: Duration = Duration::from_secs(2);

/// An OP_MSG `{ping: 1, $db: "admin"}`.
fn ping_message() -> Vec<u8> {
    let body = bson::to_vec(&doc! { "ping": 1, "$db": "admin" }).unwrap();
    let len = 16 + 4 + 1 + body.len();
    let mut m = Vec::with_capacity(len);
    m.extend_from_slice(&(len as i32).to_le_bytes());
    m.extend_from_slice(&7i32.to_le_bytes());
    m.extend_from_slice(&0i32.to_le_bytes());
    m.extend_from_slice(&2013i32.to_le_bytes());
    m.extend_from_slice(&0u32.to_le_bytes());
    m.push(0);
    m.extend_from_slice(&body);
    m
}

/// A `ping` on a new connection, with blocking sockets on the caller's thread (so that nothing
/// of the server's runtime, nor of the test's, delays it): how long it took, or why it failed.
fn probe(addr: std::net::SocketAddr) -> Result<Duration, String> {
    use std::io::{Read, Write};
    let asked = Instant::now();
    let mut s =
        std::net::TcpStream::connect_timeout(&addr, PROBE_WITHIN).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(PROBE_WITHIN))
        .map_err(|e| e.to_string())?;
    s.write_all(&ping_message()).map_err(|e| e.to_string())?;
    let mut len = [0u8; 4];
    s.read_exact(&mut len)
        .map_err(|e| format!("no answer: {e}"))?;
    let mut rest = vec![0u8; i32::from_le_bytes(len) as usize - 4];
    s.read_exact(&mut rest)
        .map_err(|e| format!("no whole answer: {e}"))?;
    let took = asked.elapsed();
    let reply = Document::from_reader(&rest[17..]).map_err(|e| e.to_string())?;
    if !reply
        .get_f64("ok")
        .is_ok_and(|ok| (ok - 1.0).abs() < f64::EPSILON)
    {
        return Err(format!("{reply}"));
    }
    if took > PROBE_WITHIN {
        return Err(format!("answered after {took:?}"));
    }
    Ok(took)
}

/// Probes on a thread of its own, one every 100 ms until `stop` (at least `at_least` of them):
/// each probe's latency, or why it failed.
fn probing(
    addr: std::net::SocketAddr,
    at_least: usize,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<Vec<Result<Duration, String>>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        while out.len() < at_least || !stop.load(std::sync::atomic::Ordering::Relaxed) {
            out.push(probe(addr));
            std::thread::sleep(Duration::from_millis(100));
        }
        out
    })
}

/// The latencies sorted, and the failures.
fn split(results: Vec<Result<Duration, String>>) -> (Vec<Duration>, Vec<String>) {
    let (mut took, mut failed) = (Vec::new(), Vec::new());
    for r in results {
        match r {
            Ok(t) => took.push(t),
            Err(e) => failed.push(e),
        }
    }
    took.sort();
    (took, failed)
}

/// A slowloris client: connects, then sends a ping's bytes one every 2 s, reconnecting when
/// closed, until `stop`.
async fn slowloris(addr: std::net::SocketAddr, stop: tokio::sync::watch::Receiver<bool>) {
    let message = ping_message();
    while !*stop.borrow() {
        let Ok(mut s) = TcpStream::connect(addr).await else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        for b in &message {
            if *stop.borrow() || s.write_all(&[*b]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_slowloris_connections_do_not_keep_a_ping_out() {
    let sim = shardtop::serve::empty_cluster(None).unwrap();
    // The real message deadline (60 s): the slow clients are not helped by a short one.
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    opts.max_connections = SLOTS;
    let (server, _client, _) = common::serve_opts(opts).await;
    let addr = server.local_addr();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let slow: Vec<_> = (0..300)
        .map(|_| tokio::spawn(slowloris(addr, stopped.clone())))
        .collect();
    const { assert!(300 > SLOTS) };
    // Every slot taken, each slow connection past the grace.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let stop_probes = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let probes = probing(addr, 40, stop_probes);
    let (took, failed) = split(
        tokio::task::spawn_blocking(move || probes.join().unwrap())
            .await
            .unwrap(),
    );
    stop.send(true).unwrap();
    for s in slow {
        s.abort();
    }
    eprintln!(
        "40 probes beside 300 slowloris connections: {} answered, median {:?}, p90 {:?}, max {:?}",
        took.len(),
        took.get(took.len() / 2),
        (!took.is_empty()).then(|| percentile(&took, 90)),
        took.last()
    );
    assert!(
        failed.is_empty(),
        "{} probes failed: {failed:?}",
        failed.len()
    );
}

/// The real binary (its runtime as `shardtop serve` builds it: the in-process server shares the
/// test's runtime and its driver, and does not show the stall): `ping`s on new connections from
/// a thread of their own while a client sorts every chunk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_is_answered_on_a_new_connection_while_every_chunk_is_sorted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    std::fs::write(
        &file,
        r#"{"name": "big", "description": "", "seedPassage": "", "shards": 3,
        "collections": [{"ns": "app.big", "key": {"h": "hashed"}, "numInitialChunks": 300000}],
        "until": 1}"#,
    )
    .unwrap();
    let f = file.display().to_string();
    let args = ["--scenario-file", f.as_str(), "--server-version", "7.0"];
    let (mut server, addr) =
        common::tmux::serve_child(&[&args[..], &["--listen", "127.0.0.1:0"]].concat());
    let addr: std::net::SocketAddr = addr.parse().unwrap();
    let uri = format!("mongodb://{addr}/?directConnection=true");
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    client
        .database("admin")
        .run_command(doc! { "ping": 1 })
        .await
        .unwrap();
    let sort = tokio::spawn(async move {
        let started = Instant::now();
        let found: Vec<Document> = client
            .database("config")
            .collection::<Document>("chunks")
            .find(doc! {})
            .sort(doc! { "lastmod": -1 })
            .limit(1)
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(found.len(), 1);
        started.elapsed()
    });
    // The sort under way (it holds the state's lock), then probes on new connections.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stop_probes = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let probes = probing(addr, 1, std::sync::Arc::clone(&stop_probes));
    let sort_took = sort.await.unwrap();
    stop_probes.store(true, std::sync::atomic::Ordering::Relaxed);
    let (took, failed) = split(
        tokio::task::spawn_blocking(move || probes.join().unwrap())
            .await
            .unwrap(),
    );
    let _ = server.kill();
    let _ = server.wait();
    eprintln!(
        "the sort of 300,000 chunks took {sort_took:?}; {} pings on new connections meanwhile, the slowest {:?}",
        took.len(),
        took.last()
    );
    assert!(
        failed.is_empty(),
        "{} probes failed: {failed:?}",
        failed.len()
    );
    assert!(
        sort_took > PROBE_WITHIN,
        "the sort ({sort_took:?}) must outlast a probe's bound"
    );
}
