//! `watch`'s reads against a mongos that misbehaves (`hostile_mongos`): every read bounded in
//! documents, bytes and `getMore`s, no reply over 48,000,000 bytes, every poll with a deadline
//! that names the read it waited for.

use std::time::{Duration, Instant};

use shardtop::live::bounds::Bounds;
use shardtop::live::client::LiveClient;
use shardtop::live::poller::{Poller, now_ms};

use crate::hostile_mongos::{self, Mode};

async fn client(uri: &str, bounds: Bounds) -> LiveClient {
    LiveClient::connect(uri, Duration::from_secs(5))
        .await
        .unwrap()
        .with_bounds(bounds)
}

fn bounds(documents: u64, bytes: u64, get_mores: u64) -> Bounds {
    Bounds {
        documents,
        bytes,
        held_bytes: bytes,
        get_mores,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_cursor_stops_at_each_bound_and_names_the_read() {
    let server = hostile_mongos::start(Mode::EndlessCursor).await;
    let cases = [
        (
            bounds(5_000, u64::MAX, u64::MAX),
            "more than 5,000 documents",
        ),
        (
            bounds(u64::MAX, 40_000_000, u64::MAX),
            "more than 40,000,000 bytes",
        ),
        (bounds(u64::MAX, u64::MAX, 3), "more than 3 getMores"),
        (
            Bounds {
                held_bytes: 30_000_000,
                ..bounds(u64::MAX, u64::MAX, u64::MAX)
            },
            "more than 30,000,000 bytes",
        ),
    ];
    for (b, said) in cases {
        let before = server.get_mores.load(std::sync::atomic::Ordering::Relaxed);
        let mut poller = Poller::new(client(&server.uri, b).await);
        let e = poller.poll(now_ms()).await.err().expect("stopped");
        assert!(
            e.message.starts_with("find config.shards: ") && e.message.contains(said),
            "{said}: {}",
            e.message
        );
        let sent = server.get_mores.load(std::sync::atomic::Ordering::Relaxed) - before;
        assert!(sent <= 5, "{said}: {sent} getMores");
    }
    // The streamed read of config.chunks (a full routing-table load) is bounded the same way,
    // by the bytes it streams, not the (smaller) bound of what a read holds.
    let streamed = Bounds {
        held_bytes: 1,
        ..bounds(2_500, u64::MAX, u64::MAX)
    };
    let c = client(&server.uri, streamed).await;
    let mut n = 0;
    let e = c
        .scan("config", "chunks", bson::doc! {}, |_| {
            n += 1;
            Ok(())
        })
        .await
        .expect_err("stopped");
    assert_eq!(n, 2_500);
    assert!(
        e.message
            .starts_with("find config.chunks: more than 2,500 documents"),
        "{}",
        e.message
    );
    let e = client(&server.uri, bounds(u64::MAX, u64::MAX, 2))
        .await
        .scan("config", "chunks", bson::doc! {}, |_| Ok(()))
        .await
        .expect_err("stopped");
    assert!(e.message.contains("more than 2 getMores"), "{}", e.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hello_advertising_more_than_a_mongos_is_refused_before_any_read() {
    let server = hostile_mongos::start(Mode::HugeReply {
        advertised: 200_000_000,
    })
    .await;
    let mut poller = Poller::new(client(&server.uri, Bounds::default()).await);
    let e = poller.poll(now_ms()).await.err().expect("refused");
    assert!(
        e.message.contains("maxMessageSizeBytes 200,000,000") && e.message.contains("48,000,000"),
        "{}",
        e.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_over_48_000_000_bytes_is_refused_naming_the_read() {
    let server = hostile_mongos::start(Mode::HugeReply {
        advertised: hostile_mongos::REAL_MAX_MESSAGE,
    })
    .await;
    let mut poller = Poller::new(client(&server.uri, Bounds::default()).await);
    let e = poller.poll(now_ms()).await.err().expect("refused");
    assert!(
        e.message.starts_with("find config.shards: ") && e.message.contains("48000000"),
        "{}",
        e.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_server_ends_the_poll_at_its_deadline_naming_the_read() {
    let server = hostile_mongos::start(Mode::Silent).await;
    let c = client(&server.uri, Bounds::default()).await;
    let mut poller = Poller::new(c.clone());
    let started = Instant::now();
    let e = poller
        .poll_within(now_ms(), Duration::from_millis(1_500))
        .await
        .err()
        .expect("given up");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(
        e.message
            .contains("stopped answering: no reply to find config.shards within 1.5 s"),
        "{}",
        e.message
    );
    assert!(
        c.waiting_for().is_none(),
        "nothing waited for after the deadline"
    );
    // `watch --once`'s path: the poll's deadline is three times the connection timeout.
    let e = shardtop::live::poller::poll_once(&server.uri, Duration::from_millis(500))
        .await
        .err()
        .expect("given up");
    assert!(e.message.contains("within 3 s"), "{}", e.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reply_is_the_read_waited_for_until_it_comes() {
    let server = hostile_mongos::start(Mode::Slow { ms: 1_500 }).await;
    let c = client(&server.uri, Bounds::default()).await;
    c.hello().await.unwrap();
    let watcher = c.clone();
    let read =
        tokio::spawn(async move { c.find("config", "shards", bson::doc! {}, None, None).await });
    let mut seen = None;
    for _ in 0..200 {
        if let Some(w) = watcher.waiting_for() {
            seen = Some(w.0);
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(seen.as_deref(), Some("find config.shards"));
    assert!(read.await.unwrap().unwrap().is_empty());
    assert!(watcher.waiting_for().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_falls_silent_after_a_poll_ends_the_next_at_its_deadline() {
    let server = hostile_mongos::start(Mode::Slow { ms: 0 }).await;
    let mut poller = Poller::new(client(&server.uri, Bounds::default()).await);
    poller
        .poll_within(now_ms(), Duration::from_secs(20))
        .await
        .expect("an empty cluster answers");
    server
        .silenced
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let e = poller
        .poll_within(now_ms(), Duration::from_millis(1_500))
        .await
        .err()
        .expect("given up");
    assert!(
        e.message
            .contains("no reply to find config.shards within 1.5 s"),
        "{}",
        e.message
    );
}

/// Runs the binary with `args`: its exit code, standard error, and how long it took.
async fn shardtop(args: Vec<String>) -> (Option<i32>, String, Duration) {
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stderr, started.elapsed())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_honours_its_duration_against_a_silent_server() {
    let server = hostile_mongos::start(Mode::Silent).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.ndjson");
    let args = ["record", &server.uri, "-o", &out.display().to_string()];
    let mut args: Vec<String> = args.iter().map(|s| (*s).to_string()).collect();
    args.extend(["--duration".into(), "3s".into()]);
    let (code, stderr, took) = shardtop(args).await;
    // Before, it waited forever; now it stops at the end of --duration (4 s: the recording's
    // start is its second's), whatever a loaded machine adds.
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("no reply to find config.shards within 3"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lab_from_stops_an_endless_sample_at_its_size() {
    let server = hostile_mongos::start(Mode::EndlessCursor).await;
    let args = [
        "lab",
        "--from",
        &server.uri,
        "--ns",
        "shop.orders",
        "--sample",
        "1500",
    ];
    let (code, stderr, _) = shardtop(args.iter().map(|s| (*s).to_string()).collect()).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("aggregate shop.orders: more than 1,500 documents — stopped"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_once_refuses_a_hello_advertising_200_mb() {
    let server = hostile_mongos::start(Mode::HugeReply {
        advertised: 200_000_000,
    })
    .await;
    let args = ["watch", &server.uri, "--once", "--json"];
    let (code, stderr, _) = shardtop(args.iter().map(|s| (*s).to_string()).collect()).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("maxMessageSizeBytes 200,000,000"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_check_ends_at_the_first_poll_deadline_against_a_silent_server() {
    let server = hostile_mongos::start(Mode::Silent).await;
    let args = ["watch", &server.uri, "--check"];
    let (code, stderr, took) = shardtop(args.iter().map(|s| (*s).to_string()).collect()).await;
    // Before, it waited forever; the deadline is 30 s.
    assert!(took < Duration::from_secs(90), "{took:?}");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("stopped answering: no reply to ") && stderr.contains("within 30 s"),
        "{stderr}"
    );
}

/// `--heat changestream` against a stream that never runs dry: each poll reads at most
/// `Bounds::CHANGE_EVENTS_PER_POLL` of it (here 64,000,000 bytes of 16 MB batches) and says so,
/// naming the read; the rest is left for the next poll.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_stream_that_never_runs_dry_is_read_up_to_its_bound_per_poll() {
    use shardtop::live::change_heat::ChangeHeat;
    let server = hostile_mongos::start(Mode::EndlessCursor).await;
    let client = client(&server.uri, Bounds::default()).await;
    let sc = shardtop::sim::scenario::built_in("ascending")
        .unwrap()
        .unwrap();
    let mut cluster = shardtop::sim::Simulator::from_scenario(&sc, sc.seed, None)
        .unwrap()
        .cluster;
    let ns = cluster.namespaces()[0].clone();
    let mut heat = ChangeHeat::default();
    // The first poll opens the stream (its first batch: 1,000 events, 16 MB).
    let notes = heat.observe(&client, &mut cluster).await;
    assert!(notes.is_empty(), "{notes:?}");
    for _ in 0..2 {
        let before = server.get_mores.load(std::sync::atomic::Ordering::Relaxed);
        let started = Instant::now();
        let notes = heat.observe(&client, &mut cluster).await;
        let sent = server.get_mores.load(std::sync::atomic::Ordering::Relaxed) - before;
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with(&format!(
                "heat from change streams: getMore {ns}: more than 64,000,000 bytes"
            )) && notes[0].ends_with("the events past it stay in the stream for the next poll"),
            "{}",
            notes[0]
        );
        assert!(sent <= 5, "{sent} getMores in one poll");
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}
