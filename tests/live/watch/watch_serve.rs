#![allow(clippy::unwrap_used)]
//! The live source through the real `mongodb` driver against `shardtop serve`: one poll gives the
//! same summary as the simulator it reads (4.4, 6.0, 7.0, 8.0), and sends only read commands.

use crate::common;

use std::time::Duration;

use serde_json::Value;
use shardtop::cluster::{Cluster, SummaryOptions};
use shardtop::live::poller::poll_once;
use shardtop::sim::{Simulator, scenario};

/// The simulator's summary as a poll through a mongos can know it: from 6.0
/// `$shardedDataDistribution` gives sizes as `avgObjSize` × count (the average over owned and
/// orphaned documents); before 6.0 `$collStats` counts orphans as the shard's own data.
fn as_polled(mut v: Value, version: &str) -> Value {
    let modern = version.parse::<shardtop::cluster::ServerVersion>().unwrap()
        >= shardtop::cluster::ServerVersion::V6_0;
    for c in v["collections"].as_array_mut().unwrap() {
        for s in c["shards"].as_array_mut().unwrap() {
            let n = |k: &str| s[k].as_u64().unwrap();
            let (d, b, od, ob) = (n("docs"), n("bytes"), n("orphanedDocs"), n("orphanedBytes"));
            if modern {
                let avg = (b + ob).checked_div(d + od).unwrap_or(0);
                s["bytes"] = (avg * d).into();
                s["orphanedBytes"] = (avg * od).into();
            } else {
                s["docs"] = (d + od).into();
                s["bytes"] = (b + ob).into();
                s["orphanedDocs"] = 0.into();
                s["orphanedBytes"] = 0.into();
            }
        }
    }
    // A live poll counts completed migrations from a log, and says which: serve's changelog
    // holds every commit (its actionlog rounds say no more).
    v["balancer"]["migrations"]["completedFrom"] = "changelog".into();
    // A live poll knows a migration's size only as an estimate: the donor's owned bytes over
    // its chunks (the ranges caught here are one whole chunk).
    let rows = v["collections"].clone();
    for m in v["balancer"]["inFlight"].as_array_mut().unwrap() {
        let c = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["ns"] == m["ns"])
            .unwrap();
        let donor = c["shards"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["shard"] == m["from"])
            .unwrap();
        let per_chunk = donor["bytes"].as_u64().unwrap() / donor["chunks"].as_u64().unwrap();
        m["bytes"] = per_chunk.into();
        m["bytesEstimated"] = true.into();
    }
    v
}

fn summary(state: &Cluster) -> Value {
    let mut v = state.summary_json(&SummaryOptions {
        source: String::new(),
        chunks: false,
        writes_unknown: true,
    });
    let o = v.as_object_mut().unwrap();
    o.remove("source");
    o.remove("time");
    // Signals a poll without write heat does not have: the recent-writes window (hottest) and
    // the balancer's own reasoning.
    o["balancer"].as_object_mut().unwrap().remove("whyNot");
    // A live cluster's drains are read from it (`shardDrainingStatus` or the catalog), not kept
    // by the simulator's state: `watch_catalog` tests them.
    o["balancer"].as_object_mut().unwrap().remove("drains");
    // `config.system.sessions` is on every cluster (`serve` adds it), not in the simulator.
    let colls = o["collections"].as_array_mut().unwrap();
    colls.retain(|c| c["ns"] != "config.system.sessions");
    for c in colls {
        c.as_object_mut().unwrap().remove("hottest");
    }
    v
}

async fn serve(
    sim: Simulator,
    log: Option<std::path::PathBuf>,
) -> (shardtop::serve::Server, String) {
    super::helpers::serve_with(sim, |o| o.command_log = log).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_poll_gives_the_simulators_summary() {
    let mut caught = 0;
    for (name, version, at) in [
        ("ascending", "4.4", 150_000),
        ("ascending", "6.0", 150_000),
        ("zones-ip", "7.0", 100_000),
        ("drain", "8.0", 5_000),
    ] {
        // The ascending cases catch whole-chunk balancer moves of the scenario of the committed
        // trace (1 KB documents at 100/s until 100 s); the built-in one writes 3 KB documents to
        // its end, and a 6.0+ donor cuts ranges inside chunks, whose reason and size a poll
        // cannot tell (`unknown`).
        let sc = if name == "ascending" {
            let text = std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/traces/ascending.scenario.json"
            ));
            scenario::parse(&text.unwrap()).unwrap()
        } else {
            scenario::built_in(name).unwrap().unwrap()
        };
        let mut sim =
            Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
        sim.run_until(at);
        // Catch a migration in flight where there is one to catch ($currentOp shows it).
        let deadline = sim.now_ms() + 30_000;
        while sim.cluster.balancer.in_flight.is_empty() && sim.now_ms() < deadline {
            sim.step();
        }
        let in_flight = sim.cluster.balancer.in_flight.len();
        let expected = as_polled(summary(&sim.cluster), version);
        let (server, uri) = serve(sim, None).await;
        let polled = poll_once(&uri, Duration::from_secs(5)).await.unwrap();
        let mut got = summary(&polled.state);
        // The estimate spreads the donor's bytes over its chunks, the remainder's bytes to the
        // first ones: the chunk caught may hold one byte more than the even share.
        let want: Vec<u64> = (expected["balancer"]["inFlight"].as_array().unwrap().iter())
            .map(|m| m["bytes"].as_u64().unwrap())
            .collect();
        for (m, want) in (got["balancer"]["inFlight"]
            .as_array_mut()
            .unwrap()
            .iter_mut())
        .zip(want)
        {
            if m["bytes"].as_u64().is_some_and(|b| b.abs_diff(want) <= 1) {
                m["bytes"] = want.into();
            }
        }
        assert_eq!(got, expected, "{name} on {version}");
        // The comparison is not vacuous: data, chunks and finished migrations are there.
        let c = &got["collections"][0];
        assert!(c["chunks"].as_u64().unwrap() > 1, "{name} {version}: {got}");
        assert!(
            c["shards"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["docs"].as_u64().unwrap() > 0)
        );
        let migrations = &got["balancer"]["migrations"];
        assert!(
            migrations["completed"].as_u64().unwrap() + migrations["inFlight"].as_u64().unwrap()
                > 0,
            "{got}"
        );
        assert!(got["balancer"]["rounds"].as_u64().unwrap() > 0, "{got}");
        assert_eq!(
            polled.state.balancer.in_flight.len(),
            in_flight,
            "{name} {version}"
        );
        caught += in_flight;
        server.shutdown().await;
    }
    assert!(caught > 0, "no case had a migration in flight");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_sends_only_allowlisted_read_commands() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("commands.ndjson");
    let sc = scenario::built_in("hashed").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(30_000);
    let (server, uri) = serve(sim, Some(log.clone())).await;
    poll_once(&uri, Duration::from_secs(5)).await.unwrap();
    server.shutdown().await;
    let text = std::fs::read_to_string(&log).unwrap();
    let driver_own = ["isMaster", "ismaster", "hello", "endSessions", "ping"];
    let mut seen = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let Some(cmd) = v["command"].as_str() else {
            continue;
        };
        assert!(
            shardtop::live::client::ALLOWED.contains(&cmd) || driver_own.contains(&cmd),
            "the live source sent {cmd}: {line}"
        );
        seen.push(cmd.to_string());
    }
    assert!(
        seen.iter().any(|c| c == "find") && seen.iter().any(|c| c == "balancerStatus"),
        "{seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_give_clear_messages() {
    // Nothing listens on this port.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    let err = poll_once(
        &format!("mongodb://ops:s3cret@127.0.0.1:{port}/?directConnection=true"),
        Duration::from_millis(500),
    )
    .await
    .err()
    .unwrap();
    assert!(
        err.message.contains("cannot reach") || err.message.contains("connection"),
        "{err}"
    );
    assert!(!err.message.contains("s3cret"), "{err}");
    let err = poll_once("mongodb://", Duration::from_millis(500))
        .await
        .err()
        .unwrap();
    assert!(err.input, "{err}");
}

/// `config.chunks` of the scenario's collection as the test client sees them (min, max,
/// shard), in key order (`config.system.sessions`'s left out).
async fn chunk_list(client: &mongodb::Client) -> Vec<bson::Document> {
    use futures::TryStreamExt;
    let sessions = common::sessions_chunk_test(client).await;
    let all: Vec<bson::Document> = client
        .database("config")
        .collection::<bson::Document>("chunks")
        .find(bson::doc! {})
        .sort(bson::doc! {"min": 1})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    all.into_iter().filter(|d| !sessions(d)).collect()
}

async fn polled_shards(client: &mongodb::Client) -> Vec<String> {
    use futures::TryStreamExt;
    let docs: Vec<bson::Document> = client
        .database("config")
        .collection::<bson::Document>("shards")
        .find(bson::doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    docs.iter()
        .map(|d| d.get_str("_id").unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incremental_refresh_converges_and_a_refine_reloads() {
    use shardtop::live::client::LiveClient;
    use shardtop::live::poller::{Poller, now_ms};
    let sc = scenario::built_in("hot-customer").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some("7.0".parse().unwrap())).unwrap();
    // This test is about the routing refresh: orphans deleted at once, so a chunk may move onto
    // any shard (with the 900 s default every shard still holds orphans of the first range and
    // refuses it, as a server does).
    sim.cluster.settings.orphan_cleanup_delay_secs = Some(0);
    // Between the scenario's createIndex {customerId: 1, placedAt: 1} (100 s) and its refine
    // (110 s): the test refines the key itself.
    sim.run_until(105_000);
    let (server, uri) = serve(sim, None).await;
    let admin = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let mut watching = Poller::new(
        LiveClient::connect(&uri, Duration::from_secs(5))
            .await
            .unwrap(),
    );
    watching.poll(now_ms()).await.unwrap();
    let full_load = watching.fetched_chunks;
    // Change the routing table behind the watcher's back: split, move, merge.
    let chunks = chunk_list(&admin).await;
    let first = &chunks[0];
    let run = |cmd: bson::Document| {
        let admin = admin.clone();
        async move { admin.database("admin").run_command(cmd).await }
    };
    run(bson::doc! {"split": "shop.orders", "bounds": [first.get_document("min").unwrap(), first.get_document("max").unwrap()]})
        .await
        .unwrap();
    let chunks = chunk_list(&admin).await;
    let owner = chunks[0].get_str("shard").unwrap().to_string();
    // A shard that still holds this range's orphans refuses it (the range deleter has not run:
    // the recipient's wait ends the migration), as a server does: the first other shard that
    // takes it.
    let mut moved = Vec::new();
    for other in polled_shards(&admin)
        .await
        .into_iter()
        .filter(|s| *s != owner)
    {
        let bounds = vec![
            bson::Bson::Document(chunks[0].get_document("min").unwrap().clone()),
            bson::Bson::Document(chunks[0].get_document("max").unwrap().clone()),
        ];
        let done = run(bson::doc! {"moveChunk": "shop.orders", "bounds": bounds, "to": other.clone(), "forceJumbo": true}).await;
        moved.push((other, done.as_ref().map_err(ToString::to_string).err()));
        if moved.last().is_some_and(|m| m.1.is_none()) {
            break;
        }
    }
    assert!(
        moved.iter().any(|m| m.1.is_none()),
        "no shard took the chunk: {moved:?}"
    );
    watching.poll(now_ms()).await.unwrap();
    let incremental = watching.fetched_chunks;
    let fresh = poll_once(&uri, Duration::from_secs(5)).await.unwrap();
    let with_chunks = |s: &Cluster| {
        s.summary_json(&SummaryOptions {
            source: String::new(),
            chunks: true,
            writes_unknown: true,
        })["collections"]
            .clone()
    };
    assert_eq!(with_chunks(watching.state()), with_chunks(&fresh.state));
    assert!(
        incremental < full_load,
        "incremental {incremental} vs full {full_load}"
    );
    // Refining the key is a new incarnation: the cache reloads everything.
    run(bson::doc! {"refineCollectionShardKey": "shop.orders", "key": {"customerId": 1, "placedAt": 1}})
        .await
        .unwrap();
    let polled = watching.poll(now_ms()).await.unwrap();
    let fresh = poll_once(&uri, Duration::from_secs(5)).await.unwrap();
    assert_eq!(with_chunks(polled.state), with_chunks(&fresh.state));
    let orders = polled.state.collection("shop.orders").unwrap();
    assert!(orders.pattern.len() == 2);
    server.shutdown().await;
}

/// A fake server: answers every command with `reply` (a replica-set member's or standalone's
/// `hello`), or closes each connection after `answers` replies.
async fn fake_server(reply: bson::Document, answers: Option<usize>, hang: bool) -> u16 {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let reply = reply.clone();
            tokio::spawn(async move {
                let mut n = 0;
                while let Ok(bytes) = shardtop::wire::read_message(&mut sock).await {
                    if answers.is_some_and(|a| n >= a) {
                        if hang {
                            // Keep the connection open and never answer.
                            tokio::time::sleep(Duration::from_secs(3600)).await;
                        }
                        return;
                    }
                    n += 1;
                    let Ok(req) = shardtop::wire::parse(&bytes) else {
                        return;
                    };
                    let out = shardtop::wire::encode_msg(1, req.request_id, &reply);
                    if sock.write_all(&out).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

fn standalone_hello() -> bson::Document {
    bson::doc! {
        "ismaster": true, "isWritablePrimary": true, "helloOk": true,
        "maxBsonObjectSize": 16_777_216, "maxMessageSizeBytes": 48_000_000, "maxWriteBatchSize": 100_000,
        "localTime": bson::DateTime::now(), "logicalSessionTimeoutMinutes": 30, "connectionId": 1,
        "minWireVersion": 0, "maxWireVersion": 21, "readOnly": false, "ok": 1.0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_is_not_a_mongos_is_named() {
    let port = fake_server(standalone_hello(), None, false).await;
    let err = poll_once(
        &format!("mongodb://127.0.0.1:{port}/?directConnection=true"),
        Duration::from_secs(3),
    )
    .await
    .err()
    .unwrap();
    assert!(
        err.message.contains("not a mongos") && err.message.contains("standalone"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_closes_the_connection_mid_poll_is_a_clear_error() {
    // Answers the handshake (as a mongos) and a few commands, then hangs up on every connection.
    let mut hello = standalone_hello();
    hello.insert("msg", "isdbgrid");
    let port = fake_server(hello.clone(), Some(3), false).await;
    let err = poll_once(
        &format!("mongodb://127.0.0.1:{port}/?directConnection=true"),
        Duration::from_secs(2),
    )
    .await
    .err()
    .unwrap();
    assert!(
        !err.message.is_empty() && err.message.contains("127.0.0.1"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_answering_mid_poll_is_given_up_on() {
    // Keeps every connection open after a few replies, and never answers again.
    let mut hello = standalone_hello();
    hello.insert("msg", "isdbgrid");
    let port = fake_server(hello, Some(3), true).await;
    let started = std::time::Instant::now();
    let err = poll_once(
        &format!("mongodb://127.0.0.1:{port}/?directConnection=true"),
        Duration::from_secs(1),
    )
    .await
    .err()
    .unwrap();
    assert!(err.message.contains("127.0.0.1"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the poll gave up"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_after_ten_changes_fetches_under_one_percent_of_the_chunks() {
    use shardtop::live::client::LiveClient;
    use shardtop::live::poller::{Poller, now_ms};
    use shardtop::model::KeyValue;
    // 1,000,000 chunks; the command log counts the documents each reply returned.
    let text = r#"{"name": "big", "description": "d", "seedPassage": "p", "shards": 4, "balancer": false,
        "collections": [{"ns": "app.big", "key": {"h": "hashed"}, "numInitialChunks": 1000000}], "until": 1}"#;
    let sc = scenario::parse(text).unwrap();
    let sim = Simulator::from_scenario(&sc, 1, Some("7.0".parse().unwrap())).unwrap();
    let table = &sim.cluster.collections[0].table;
    let total = table.len();
    assert_eq!(total, 1_000_000);
    // Ten split points, in the middles of chunks spread over the table.
    let middles: Vec<i64> = (0..10)
        .map(|k| {
            let c = table.chunk(1 + k * (total / 10));
            let (KeyValue::Int64(lo), KeyValue::Int64(hi)) =
                (c.min.get(0).unwrap(), c.max.get(0).unwrap())
            else {
                panic!("hashed bounds are Int64");
            };
            lo + (hi - lo) / 2
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("commands.ndjson");
    let (server, uri) = serve(sim, Some(log.clone())).await;
    let mut watching = Poller::new(
        LiveClient::connect(&uri, Duration::from_secs(60))
            .await
            .unwrap(),
    );
    watching.poll(now_ms()).await.unwrap();
    assert_eq!(
        watching.fetched_chunks,
        total + 1,
        "the first poll loads every chunk (and config.system.sessions's one)"
    );
    let admin = mongodb::Client::with_uri_str(&uri).await.unwrap();
    // Ten splits (a paused server would never finish a migration).
    for middle in middles {
        admin
            .database("admin")
            .run_command(bson::doc! {"split": "app.big", "middle": {"h": middle}})
            .await
            .unwrap();
    }
    let before = std::fs::read_to_string(&log).unwrap().lines().count();
    watching.poll(now_ms()).await.unwrap();
    server.shutdown().await;
    let text = std::fs::read_to_string(&log).unwrap();
    let fetched: u64 = text
        .lines()
        .skip(before)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["ns"].as_str() == Some("config.chunks"))
        .filter_map(|v| v["returned"].as_u64())
        .sum();
    assert!(fetched > 0, "the poll read the changed chunks");
    assert!(
        fetched * 100 <= total as u64,
        "fetched {fetched} of {total} chunks"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_writes_a_trace_that_replays_to_the_polled_state() {
    let sc = scenario::built_in("zones-ip").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some("7.0".parse().unwrap())).unwrap();
    sim.run_until(60_000);
    let expected = as_polled(summary(&sim.cluster), "7.0");
    let (server, uri) = serve(sim, None).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.ndjson.zst");
    let recorded = super::helpers::record_in_process(&uri, &path, 2_000).await;
    server.shutdown().await;
    assert!(recorded.polls >= 2, "{} polls", recorded.polls);
    let mut replay =
        shardtop::trace::Replay::open(&path, shardtop::trace::ReadOptions::default()).unwrap();
    assert!(
        replay.trace.warnings.is_empty(),
        "{:?}",
        replay.trace.warnings
    );
    replay.seek(replay.end_ms()).unwrap();
    assert_eq!(summary(replay.state()), expected);
    assert_eq!(
        replay.trace.header.source,
        format!(
            "mongodb://127.0.0.1:{}",
            uri.split(':').nth(2).unwrap().split('/').next().unwrap()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_stream_heat_maps_each_write_to_its_chunk() {
    use shardtop::live::change_heat::ChangeHeat;
    use shardtop::live::client::LiveClient;
    use shardtop::live::poller::{Poller, now_ms};
    let sc = scenario::built_in("hashed").unwrap().unwrap();
    let sim = Simulator::from_scenario(&sc, sc.seed, Some("8.0".parse().unwrap())).unwrap();
    let (server, uri) = serve(sim, None).await;
    let mut watching = Poller::new(
        LiveClient::connect(&uri, Duration::from_secs(5))
            .await
            .unwrap(),
    );
    watching.change_heat = Some(ChangeHeat::default());
    watching.poll(now_ms()).await.unwrap();
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let docs: Vec<bson::Document> = (0..30)
        .map(|i| bson::doc! {"username": format!("user{i:03}")})
        .collect();
    client
        .database("app")
        .collection::<bson::Document>("users")
        .insert_many(docs)
        .await
        .unwrap();
    let polled = watching.poll(now_ms()).await.unwrap();
    server.shutdown().await;
    let c = &polled.state.collections[0];
    assert_eq!(c.routed_writes.iter().sum::<u64>(), 30);
    assert_eq!(c.window.total(polled.state.now_ms), 30);
    assert!(
        c.routed_writes.iter().filter(|&&n| n > 0).count() > 1,
        "a hashed key scatters: {:?}",
        c.routed_writes
    );
    let summary = polled.state.summary_json(&SummaryOptions {
        source: String::new(),
        chunks: false,
        writes_unknown: false,
    });
    assert!(!summary["collections"][0]["hottest"].is_null(), "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_stops_at_its_duration_whatever_the_interval() {
    use shardtop::live::client::LiveClient;
    use shardtop::live::poller::Poller;
    let sc = scenario::built_in("zones-ip").unwrap().unwrap();
    let sim = Simulator::from_scenario(&sc, sc.seed, Some("7.0".parse().unwrap())).unwrap();
    let (server, uri) = serve(sim, None).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.ndjson");
    let poller = Poller::new(
        LiveClient::connect(&uri, Duration::from_secs(5))
            .await
            .unwrap(),
    );
    let started = std::time::Instant::now();
    // An interval of an hour, a duration of under a second: it ends at the duration.
    let recorded = shardtop::live::record::record(
        poller,
        &uri,
        &path,
        Duration::from_secs(3600),
        Some(Duration::from_millis(800)),
        std::future::pending(),
    )
    .await
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(recorded.polls, 1);
    server.shutdown().await;
    // Absurd intervals and durations are refused before anything is read (exit 2).
    for args in [
        ["--interval", "1ms", "--duration", "1s"],
        ["--interval", "25h", "--duration", "1s"],
        ["--interval", "1s", "--duration", "99999999999999999999h"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
            .args(["record", "mongodb://127.0.0.1:1", "-o"])
            .arg(dir.path().join("never.ndjson"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--interval") || err.contains("at most a year"),
            "{err}"
        );
    }
}
