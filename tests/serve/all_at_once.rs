//! A soak of the real `shardtop serve` (issues 20, 36): many clients at once on loopback —
//! writers, readers that leave cursors open, change streams, clients that drop the connection in
//! the middle of a reply, clients that send half a message and stall, transactions (some left
//! open until `transactionLifetimeLimitSeconds`, here 3 s, aborts them) with writes outside them
//! to the same documents (which wait for them), and sorted reads of a 20,000-chunk
//! `config.chunks` (by `find` and `aggregate`, index-ordered and top-k) — for a bounded time
//! (`SHARDTOP_SOAK_SECS`, default 45; `SOAK_ONLY=wrcdts` picks writers, readers, change streams,
//! droppers, transactions, sorted chunk reads), with the server's memory sampled from /proc. The
//! peak stays under a bound, the memory is flat over time (the second half of the run grows by no
//! more than what the documents written in it hold, plus a margin), it comes back near the start
//! once the clients leave (what is still held is the documents written), and every acknowledged
//! write is there afterwards. It prints its numbers (memory over time, peak, requests served,
//! errors by code).
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bson::{Document, doc};
use futures::TryStreamExt;
use mongodb::Client;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

/// The server's resident memory may never pass this.
const PEAK_BOUND_MB: u64 = 512;
/// What serve holds for each document written through it and kept: the document, its `_id`
/// index entry, its change event, the simulator's bookkeeping (measured: about 7 KB).
const KEPT_BYTES_PER_WRITE: u64 = 8 * 1024;
/// How much more than the documents written in the second half of the run the memory may grow
/// in it (allocator slack, cursors and change streams open at the sample).
const FLAT_MARGIN_MB: u64 = 96;
/// The accounts the transactions and the writes outside them share.
const ACCOUNTS: i64 = 50;
/// The soak's cluster: a 7.0 cluster with one collection of 20,000 chunks (7.0 honours
/// `numInitialChunks`) for the sorted chunk reads.
const SCENARIO: &str = r#"{"name": "soak", "description": "", "seedPassage": "", "shards": 3,
    "collections": [{"ns": "soak.big", "key": {"h": "hashed"}, "numInitialChunks": 20000}],
    "until": 1}"#;

struct Serve {
    child: Child,
    addr: String,
    _scenario: tempfile::TempDir,
}

impl Serve {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("soak.json");
        std::fs::write(&file, SCENARIO).unwrap();
        let (child, addr) = common::tmux::serve_child(&[
            "--listen",
            "127.0.0.1:0",
            "--server-version",
            "7.0",
            "--scenario-file",
            file.to_str().unwrap(),
        ]);
        Self {
            child,
            addr,
            _scenario: dir,
        }
    }

    /// Resident memory in MB (`VmRSS`).
    fn rss_mb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: u64 = status
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap();
        kb / 1024
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Default)]
struct Tally {
    requests: AtomicU64,
    errors: Mutex<BTreeMap<i32, u64>>,
    acknowledged: Mutex<Vec<i64>>,
}

impl Tally {
    async fn error(&self, e: &mongodb::error::Error) {
        let code = match &*e.kind {
            mongodb::error::ErrorKind::Command(c) => c.code,
            mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(w)) => w.code,
            _ => -1,
        };
        *self.errors.lock().await.entry(code).or_default() += 1;
    }
}

async fn writer(client: Client, id: i64, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let c = client.database("soak").collection::<Document>("events");
    let mut n = 0i64;
    while !stop.load(Ordering::Relaxed) {
        let key = id * 1_000_000_000 + n;
        n += 1;
        tally.requests.fetch_add(1, Ordering::Relaxed);
        match c
            .insert_one(doc! { "_id": key, "w": id, "payload": "x".repeat(200) })
            .await
        {
            Ok(_) => tally.acknowledged.lock().await.push(key),
            Err(e) => tally.error(&e).await,
        }
    }
}

async fn reader(client: Client, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let db = client.database("soak");
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(2, Ordering::Relaxed);
        // A cursor opened and left behind (the server keeps it until its connection goes).
        if let Err(e) = db
            .run_command(doc! { "find": "events", "batchSize": 5 })
            .await
        {
            tally.error(&e).await;
        }
        let c = db.collection::<Document>("events");
        match c.find(doc! { "w": { "$in": [1, 2, 3] } }).limit(200).await {
            Ok(cursor) => {
                if let Err(e) = cursor.try_collect::<Vec<_>>().await {
                    tally.error(&e).await;
                }
            }
            Err(e) => tally.error(&e).await,
        }
    }
}

async fn watcher(client: Client, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let c = client.database("soak").collection::<Document>("events");
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(1, Ordering::Relaxed);
        match c.watch().await {
            Ok(mut stream) => {
                for _ in 0..5 {
                    let next =
                        tokio::time::timeout(Duration::from_secs(2), stream.try_next()).await;
                    if let Ok(Err(e)) = next {
                        tally.error(&e).await;
                        break;
                    }
                }
            }
            Err(e) => tally.error(&e).await,
        }
    }
}

/// Transactions on the shared accounts: every third one left open (aborted by the server after
/// `transactionLifetimeLimitSeconds`), the others committed; between them writes outside a
/// transaction to the same accounts (which wait for a holder to end, up to their `maxTimeMS`).
async fn transactions(client: Client, id: i64, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let db = client.database("soak");
    let c = db.collection::<Document>("accounts");
    let mut n = 0i64;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let Ok(mut s) = client.start_session().await else {
            continue;
        };
        tally.requests.fetch_add(3, Ordering::Relaxed);
        let account = (id * 7 + n) % ACCOUNTS;
        if s.start_transaction().await.is_ok() {
            let update = c
                .update_one(doc! { "_id": account }, doc! { "$inc": { "balance": 1 } })
                .session(&mut s)
                .await;
            match update {
                Ok(_) if n % 3 == 0 => {
                    // Left open: the server aborts it; the session goes with the client later.
                    std::mem::forget(s);
                }
                Ok(_) => {
                    if let Err(e) = s.commit_transaction().await {
                        tally.error(&e).await;
                    }
                }
                Err(e) => tally.error(&e).await,
            }
        }
        let outside = db
            .run_command(doc! {
                "update": "accounts",
                "updates": [{ "q": { "_id": (account + 1) % ACCOUNTS }, "u": { "$inc": { "outside": 1 } } }],
                "maxTimeMS": 500,
            })
            .await;
        if let Err(e) = outside {
            tally.error(&e).await;
        }
    }
}

/// Sorted reads of the 20,000-chunk collection: by `uuid` in index order (as mongosh's
/// `sh.status()`), top-k blocking sorts, and the same through `aggregate`.
async fn sorted_chunks(client: Client, uuid: bson::Bson, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let config = client.database("config");
    let reads = [
        doc! { "find": "chunks", "filter": { "uuid": uuid.clone() }, "sort": { "max": -1 }, "limit": 5 },
        doc! { "find": "chunks", "filter": { "uuid": uuid.clone() }, "sort": { "min": 1 }, "batchSize": 20 },
        doc! { "find": "chunks", "filter": {}, "sort": { "shard": 1, "min": -1 }, "limit": 5 },
        doc! { "aggregate": "chunks", "pipeline": [
            { "$match": { "uuid": uuid.clone() } }, { "$sort": { "lastmod": -1 } }, { "$limit": 10 },
        ], "cursor": {} },
        doc! { "aggregate": "chunks", "pipeline": [
            { "$sort": { "shard": -1, "max": 1 } }, { "$limit": 3 }, { "$project": { "shard": 1 } },
        ], "cursor": {} },
    ];
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = config.run_command(reads[i % reads.len()].clone()).await {
            tally.error(&e).await;
        }
        i += 1;
    }
}

/// A find over many documents whose reply is never read: the connection drops mid-reply.
async fn dropper(addr: String, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(1, Ordering::Relaxed);
        let Ok(mut s) = TcpStream::connect(&addr).await else {
            continue;
        };
        let mut body = Vec::new();
        doc! { "find": "events", "batchSize": 50_000, "$db": "soak" }
            .to_writer(&mut body)
            .unwrap();
        let mut m = Vec::new();
        m.extend_from_slice(&((16 + 5 + body.len()) as i32).to_le_bytes());
        m.extend_from_slice(&1i32.to_le_bytes());
        m.extend_from_slice(&0i32.to_le_bytes());
        m.extend_from_slice(&2013i32.to_le_bytes());
        m.extend_from_slice(&0u32.to_le_bytes());
        m.push(0);
        m.extend_from_slice(&body);
        let _ = s.write_all(&m).await;
        let mut some = [0u8; 64];
        let _ = s.read(&mut some).await;
        drop(s);
        // And half a message, then gone.
        if let Ok(mut s) = TcpStream::connect(&addr).await {
            let _ = s.write_all(&10_000_000i32.to_le_bytes()).await;
            let _ = s.write_all(&[0u8; 4096]).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The clients of the soak: writers, readers (each with a client of its own), change streams,
/// and clients that drop their connection mid-reply or stall mid-message.
async fn clients(
    serve: &Serve,
    client: &Client,
    uri: &str,
    stop: &Arc<AtomicBool>,
    tally: &Arc<Tally>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    let only = std::env::var("SOAK_ONLY").unwrap_or_default();
    let on = |k: &str| only.is_empty() || only.contains(k);
    for id in 0..8 {
        if !on("w") {
            break;
        }
        tasks.push(tokio::spawn(writer(
            client.clone(),
            id,
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    for _ in 0..6 {
        if !on("r") {
            break;
        }
        // Each reader on a client of its own, dropped when it ends (its cursors with it).
        let own = Client::with_uri_str(uri).await.unwrap();
        tasks.push(tokio::spawn(reader(
            own,
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    for _ in 0..3 {
        if !on("c") {
            break;
        }
        tasks.push(tokio::spawn(watcher(
            client.clone(),
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    if on("t") {
        client
            .database("soak")
            .collection::<Document>("accounts")
            .insert_many((0..ACCOUNTS).map(|i| doc! { "_id": i, "balance": 0 }))
            .await
            .unwrap();
    }
    for id in 0..4 {
        if !on("t") {
            break;
        }
        let own = Client::with_uri_str(uri).await.unwrap();
        tasks.push(tokio::spawn(transactions(
            own,
            id,
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    if on("s") {
        let c = client
            .database("config")
            .collection::<Document>("collections")
            .find_one(doc! { "_id": "soak.big" })
            .await
            .unwrap()
            .unwrap();
        let uuid = c.get("uuid").unwrap().clone();
        for _ in 0..2 {
            tasks.push(tokio::spawn(sorted_chunks(
                client.clone(),
                uuid.clone(),
                Arc::clone(stop),
                Arc::clone(tally),
            )));
        }
    }
    for _ in 0..3 {
        if !on("d") {
            break;
        }
        tasks.push(tokio::spawn(dropper(
            serve.addr.clone(),
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    tasks
}

/// Samples the server's memory every 250 ms for `secs` seconds (the peak under its bound),
/// prints it every 5 s and checks it is flat: from the middle of the run to its end, no more
/// growth than the documents written meanwhile hold, plus a margin. Returns the peak.
async fn sample(serve: &Serve, secs: u64, start_mb: u64, tally: &Tally) -> u64 {
    let started = Instant::now();
    let mut peak_mb = start_mb;
    // (seconds, MB, acknowledged writes) every 5 s: the memory over time.
    let mut timeline: Vec<(u64, u64, u64)> = Vec::new();
    while started.elapsed() < Duration::from_secs(secs) {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now_mb = serve.rss_mb();
        peak_mb = peak_mb.max(now_mb);
        assert!(peak_mb < PEAK_BOUND_MB, "serve holds {peak_mb} MB");
        let at = started.elapsed().as_secs();
        if timeline.last().is_none_or(|(t, _, _)| at >= t + 5) {
            let writes = tally.acknowledged.lock().await.len() as u64;
            timeline.push((at, now_mb, writes));
        }
    }
    println!(
        "soak memory over time (s: MB, acknowledged writes): {}",
        timeline
            .iter()
            .map(|(t, mb, w)| format!("{t}: {mb} MB {w}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let (Some(mid), Some(last)) = (timeline.get(timeline.len() / 2), timeline.last()) {
        let written_mb = (last.2 - mid.2) * KEPT_BYTES_PER_WRITE / (1 << 20);
        assert!(
            last.1 <= mid.1 + written_mb + FLAT_MARGIN_MB,
            "memory grew from {} MB at {} s to {} MB at {} s (the writes meanwhile hold ≈ {written_mb} MB): {timeline:?}",
            mid.1,
            mid.0,
            last.1,
            last.0
        );
    }
    peak_mb
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_under_mixed_load_keeps_its_memory_bounded_and_loses_no_write() {
    let secs: u64 = std::env::var("SHARDTOP_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(45);
    let serve = Serve::start();
    let uri = format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=10000&maxPoolSize=50",
        serve.addr
    );
    let client = Client::with_uri_str(&uri).await.unwrap();
    client
        .database("admin")
        .run_command(doc! { "ping": 1 })
        .await
        .unwrap();
    // Open transactions live 3 s here (60 s by default), so the soak sees them aborted.
    client
        .database("admin")
        .run_command(doc! { "setParameter": 1, "transactionLifetimeLimitSeconds": 3 })
        .await
        .unwrap();
    let start_mb = serve.rss_mb();
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let tasks = clients(&serve, &client, &uri, &stop, &tally).await;
    let peak_mb = sample(&serve, secs, start_mb, &tally).await;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(30), t).await;
    }
    // Every acknowledged write is there.
    let acknowledged = tally.acknowledged.lock().await.clone();
    let events = client.database("soak").collection::<Document>("events");
    let stored = events.count_documents(doc! {}).await.unwrap();
    assert_eq!(
        stored,
        acknowledged.len() as u64,
        "acknowledged writes lost"
    );
    for key in acknowledged.iter().step_by(97) {
        assert!(
            events
                .find_one(doc! { "_id": key })
                .await
                .unwrap()
                .is_some(),
            "acknowledged write {key} lost"
        );
    }
    // The clients gone (the readers' with their cursors), the memory comes back near the start:
    // what stays is the documents written (about 300 bytes each as kept).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let status = client
        .database("admin")
        .run_command(doc! { "serverStatus": 1 })
        .await
        .unwrap();
    let open = status
        .get_document("metrics")
        .and_then(|m| m.get_document("cursor"))
        .and_then(|c| c.get_document("open"))
        .unwrap()
        .get("total")
        .cloned();
    let end_mb = serve.rss_mb();
    let kept_mb = acknowledged.len() as u64 * KEPT_BYTES_PER_WRITE / (1 << 20);
    let errors = tally.errors.lock().await.clone();
    println!(
        "soak: {secs} s, {} requests, {} acknowledged writes, memory start {start_mb} MB, peak \
         {peak_mb} MB, end {end_mb} MB (what the kept documents hold ≈ {kept_mb} MB), cursors still open \
         {open:?}, errors by code {errors:?}",
        tally.requests.load(Ordering::Relaxed),
        acknowledged.len()
    );
    assert!(
        end_mb <= start_mb + kept_mb + 32,
        "memory did not come back: start {start_mb} MB, end {end_mb} MB, kept ≈ {kept_mb} MB"
    );
    // CursorNotFound (43, cursors killed with their connection); in the transactions: a
    // WriteConflict (112) between two of them, NoSuchTransaction (251) after one expired,
    // MaxTimeMSExpired (50) for a write outside that waited past its limit.
    assert!(
        errors
            .keys()
            .all(|code| matches!(*code, 43 | 112 | 251 | 50)),
        "errors other than CursorNotFound, WriteConflict, NoSuchTransaction, MaxTimeMSExpired: {errors:?}"
    );
}
