//! A soak of the real `shardtop serve` (issues 20, 36): many clients at once on loopback —
//! writers, readers that leave cursors open, change streams, clients that drop the connection in
//! the middle of a reply, clients that send half a message and stall, transactions (some left
//! open until `transactionLifetimeLimitSeconds`, here 3 s, aborts them) with writes outside them
//! to the same documents (which wait for them), and sorted reads of a 20,000-chunk
//! `config.chunks` (by `find` and `aggregate`, index-ordered and top-k) — for a bounded time
//! (`SHARDTOP_SOAK_SECS`, default 45; `SOAK_ONLY=wrcdts` picks writers, readers, change streams,
//! droppers, transactions, sorted chunk reads), with the server's memory sampled from /proc. The
//! peak stays under a bound, the memory is flat over time (the second half of the run grows by no
//! more than what the documents written in it hold, plus a margin), once the clients leave no
//! cursor is left open and the memory comes back within that margin of the start (measured
//! after one of each sorted read; what is still held is the documents written), and every acknowledged
//! write is there afterwards. It prints its numbers (memory over time, peak, requests served,
//! errors by code).
#![allow(clippy::unwrap_used)]

mod clients;

use crate::common;

use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bson::{Document, doc};
use mongodb::Client;

use clients::{Tally, big_uuid, clients, sorted_reads};

/// The server's resident memory may never pass this.
const PEAK_BOUND_MB: u64 = 512;
/// What serve holds for each document written through it and kept: the document, its `_id`
/// index entry, its change event, the simulator's bookkeeping (measured: about 7 KB).
const KEPT_BYTES_PER_WRITE: u64 = 8 * 1024;
/// How much more than the documents written in the second half of the run the memory may grow
/// in it (allocator slack, cursors and change streams open at the sample).
const FLAT_MARGIN_MB: u64 = 96;
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

/// Serves each kind of sorted read once before the start is measured: what the allocator keeps
/// of a sort over 20,000 chunks (about 30 MB, measured with the sorted reads alone) is then in
/// the start, and "comes back" compares like with like.
async fn warm_up(client: &Client, uri: &str) {
    let uuid = big_uuid(client).await;
    let own = Client::with_uri_str(uri).await.unwrap();
    for read in sorted_reads(&uuid) {
        own.database("config").run_command(read).await.unwrap();
    }
    own.shutdown().immediate(true).await;
}

/// The open cursors once the clients have gone (waited for up to 20 s: four times the cursor
/// timeout the soak sets).
async fn cursors_open_after_clients_left(client: &Client) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let open = common::open_cursors(client).await;
        if open == 0 || Instant::now() > deadline {
            return open;
        }
    }
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
    // Open transactions live 3 s here (60 s by default), so the soak sees them aborted; cursors
    // left unread die after 5 s (10 minutes by default), so the soak sees the cursor timeout at
    // work beside the cursors killed with their sessions and connections. Both run on serve's
    // ticker, which a line written to a closed stderr once stopped (`closed_stderr`).
    for parameter in [
        doc! { "setParameter": 1, "transactionLifetimeLimitSeconds": 3 },
        doc! { "setParameter": 1, "cursorTimeoutMillis": 5000 },
    ] {
        client
            .database("admin")
            .run_command(parameter)
            .await
            .unwrap();
    }
    warm_up(&client, &uri).await;
    let start_mb = serve.rss_mb();
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let tasks = clients(&serve.addr, &client, &uri, &stop, &tally).await;
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
    let open = cursors_open_after_clients_left(&client).await;
    let end_mb = serve.rss_mb();
    let kept_mb = acknowledged.len() as u64 * KEPT_BYTES_PER_WRITE / (1 << 20);
    let errors = tally.errors.lock().await.clone();
    println!(
        "soak: {secs} s, {} requests, {} acknowledged writes, memory start {start_mb} MB, peak \
         {peak_mb} MB, end {end_mb} MB (what the kept documents hold ≈ {kept_mb} MB), cursors still open \
         {open}, errors by code {errors:?}",
        tally.requests.load(Ordering::Relaxed),
        acknowledged.len()
    );
    assert_eq!(open, 0, "cursors left open by clients gone");
    // What the clients held is gone (no cursor open, checked above); what the allocator keeps of
    // the heaps of the threads the long reads ran on (`block_in_place`) is not given back to the
    // system at once: measured 31 to 42 MB with no cursor open, under the flatness margin.
    assert!(
        end_mb <= start_mb + kept_mb + FLAT_MARGIN_MB,
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
