#![allow(clippy::unwrap_used)]
//! `serve` keeps answering while slow clients and long commands run (issue 46): 300 slowloris
//! connections (a byte every 2 s, more than the 256 slots) do not keep a new client's `ping`
//! out — every probe is answered, its latency reported —, and a `ping` on a new connection is
//! answered while `config.chunks.find().sort({lastmod: -1}).limit(1)` sorts every chunk of the
//! cluster. Bounds are generous: a probe must answer within 2 s, while the slow thing lasts far
//! longer (its time is printed).

use crate::common;

use std::time::{Duration, Instant};

use bson::{Document, doc};
use futures::TryStreamExt;
use shardtop::serve::{MAX_CONNECTIONS, ServeOptions};
use shardtop::sim::{Simulator, scenario};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
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

/// A `ping` on a new connection: how long it took, or why it failed.
async fn probe(addr: std::net::SocketAddr) -> Result<Duration, String> {
    let asked = Instant::now();
    let answer = async {
        let mut s = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        s.write_all(&ping_message())
            .await
            .map_err(|e| e.to_string())?;
        let mut len = [0u8; 4];
        s.read_exact(&mut len).await.map_err(|e| e.to_string())?;
        let mut rest = vec![0u8; i32::from_le_bytes(len) as usize - 4];
        s.read_exact(&mut rest).await.map_err(|e| e.to_string())?;
        let reply = Document::from_reader(&rest[17..]).map_err(|e| e.to_string())?;
        match reply.get_f64("ok") {
            Ok(ok) if (ok - 1.0).abs() < f64::EPSILON => Ok(()),
            _ => Err(format!("{reply}")),
        }
    };
    match tokio::time::timeout(PROBE_WITHIN, answer).await {
        Ok(Ok(())) => Ok(asked.elapsed()),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(format!("no answer within {PROBE_WITHIN:?}")),
    }
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
    let (server, _client, _) = common::serve_opts(opts).await;
    let addr = server.local_addr();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let slow: Vec<_> = (0..300)
        .map(|_| tokio::spawn(slowloris(addr, stopped.clone())))
        .collect();
    const { assert!(300 > MAX_CONNECTIONS) };
    // Every slot taken, each slow connection past the grace.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut took = Vec::new();
    let mut failed = Vec::new();
    for _ in 0..40 {
        match probe(addr).await {
            Ok(t) => took.push(t),
            Err(e) => failed.push(e),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.send(true).unwrap();
    for s in slow {
        s.abort();
    }
    took.sort();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_is_answered_on_a_new_connection_while_every_chunk_is_sorted() {
    let text = r#"{"name": "s", "description": "", "seedPassage": "", "shards": 3,
        "collections": [{"ns": "app.big", "key": {"h": "hashed"}, "numInitialChunks": 300000}],
        "until": 1}"#;
    let sc = scenario::parse(text).unwrap();
    let built = Instant::now();
    let sim =
        Simulator::from_scenario(&sc, 1, Some(shardtop::cluster::ServerVersion::V7_0)).unwrap();
    eprintln!("300,000 chunks laid out in {:?}", built.elapsed());
    let (server, client) = common::serve_paused(sim).await;
    let addr = server.local_addr();
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
    let mut took = Vec::new();
    while !sort.is_finished() {
        took.push(probe(addr).await.unwrap());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let sort_took = sort.await.unwrap();
    eprintln!(
        "the sort of 300,000 chunks took {sort_took:?}; {} pings on new connections meanwhile, the slowest {:?}",
        took.len(),
        took.iter().max()
    );
    assert!(
        !took.is_empty() && sort_took > PROBE_WITHIN,
        "the sort ({sort_took:?}) must outlast a probe's bound"
    );
}
