//! Conformance and the explain panel on a live source, against `serve`: polled every 10 virtual
//! seconds (a paused server per poll, its simulator run on between them, so the run is
//! deterministic), `serve` — which follows the rules — raises no finding; a recording of a cluster
//! left imbalanced with its balancer on and no migration for 15 minutes does, through `replay
//! --json`; and `watch`'s source answers the explain panel from its latest poll.

use std::time::Duration;

use shardtop::cluster::Cluster;
use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::conformance::Tracker;
use shardtop::view::conformance::Status;

fn sim(name: &str, version: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap()
}

/// One poll of `sim` served paused, stamped with the simulator's time; what it could not read.
async fn poll(sim: &Simulator) -> (Cluster, shardtop::sim::balancer::explain::Unread) {
    let (server, uri) = super::helpers::serve_paused(sim.clone()).await;
    let client = LiveClient::connect(&uri, Duration::from_secs(5))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    // serve stamps its documents with the wall clock: polled at the wall clock, then stamped
    // with the simulator's time (the comparison takes durations from the states' times).
    poller.poll(shardtop::live::poller::now_ms()).await.unwrap();
    let unread = shardtop::source::conformance::unread_of_refused(poller.state(), poller.refused());
    let mut state = poller.into_state();
    state.now_ms = sim.cluster.now_ms;
    server.shutdown().await;
    (state, unread)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_polled_over_a_long_run_raises_no_finding() {
    for (name, version, minutes) in [
        ("add-shard", "7.0", 20),
        ("add-shard", "6.0", 15),
        ("drain", "8.0", 15),
        ("zones-ip", "7.0", 15),
    ] {
        let mut s = sim(name, version);
        let mut t = Tracker::default();
        let mut compared = 0;
        for k in 1..=minutes * 6 {
            s.run_until(k * 10_000);
            let (state, unread) = poll(&s).await;
            t.observe(&state, unread);
            let c = t.conformance();
            assert_ne!(
                c.status,
                Status::Diverges,
                "{name} {version} at {} s: {c:?}",
                k * 10
            );
            compared += u32::from(c.status == Status::Conforms);
        }
        assert!(compared > 0, "{name} {version}: no poll was compared");
    }
}

/// A recording, written as `record` writes one: a keyframe of the polled state every 10 s.
fn write_recording(path: &std::path::Path, states: &[Cluster]) {
    use shardtop::trace::header::Header;
    use shardtop::trace::state_codec;
    use shardtop::trace::writer::{Existing, TraceWriter};
    let first = &states[0];
    let header = Header {
        recorder: "shardtop test".into(),
        source: "127.0.0.1:27017".into(),
        server_version: first.version.to_string(),
        start_epoch_seconds: 1_796_288_400,
        // The polls' spacing, as `record` writes its own.
        keyframe_interval_ms: states.get(1).map_or(10_000, |s| s.now_ms - first.now_ms),
        shards: first.shards.iter().map(|s| s.shard.id.clone()).collect(),
        collections: (first.collections.iter())
            .map(|c| {
                let p = shardtop::trace::json::pattern_json(&c.pattern);
                (c.ns.clone(), p)
            })
            .collect(),
        scenario: None,
    };
    let mut w = TraceWriter::create(path, &header, Existing::Replace).unwrap();
    for s in states {
        w.keyframe(&state_codec::encode(s)).unwrap();
    }
    w.finish(states.last().unwrap().now_ms).unwrap();
}

async fn replay_json(path: &std::path::Path, at: Option<&str>) -> serde_json::Value {
    let mut args = vec!["replay".into(), path.display().to_string(), "--json".into()];
    if let Some(at) = at {
        args.extend(["--at".to_string(), at.to_string()]);
    }
    let out = super::helpers::shardtop(args).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_whose_migrations_were_withheld_is_said_to_diverge() {
    // add-shard's fourth shard has just come: the rules move chunks to it (a release line where
    // the move they pick on the polled state would not fail: a poll spreads a shard's data
    // evenly over its chunks). The poll is real (serve, paused); the cluster then stays as it
    // is, balancer on, for 15 minutes, polled every 30 s.
    let mut polled = None;
    for version in ["6.0", "5.0", "7.0", "8.0"] {
        let mut s = sim("add-shard", version);
        s.run_until(31_000);
        let (p, _) = poll(&s).await;
        let mut quiet = p.clone();
        quiet.balancer.round = None;
        quiet.balancer.in_flight.clear();
        let c = quiet.collection_index("app.items").unwrap();
        if matches!(Simulator::over(quiet).next_move(c), Ok(m) if m.fails.is_none()) {
            polled = Some(p);
            break;
        }
    }
    let polled = polled.expect("a release line whose rules pick a move that starts");
    assert!(polled.settings.balancer_enabled);
    let states: Vec<Cluster> = (0..=30u64)
        .map(|k| {
            let mut st = polled.clone();
            st.now_ms = k * 30_000;
            // Its rounds end having moved nothing (`inBalancerRound` false at every poll).
            st.balancer.round = None;
            st.balancer.in_flight.clear();
            st
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("withheld.ndjson");
    write_recording(&path, &states);
    let end = replay_json(&path, None).await;
    let c = &end["conformance"];
    assert_eq!(c["status"], "diverges", "{c:#}");
    let f = &c["findings"][0];
    assert_eq!(f["kind"], "withheld", "{f:#}");
    assert_eq!(f["rule"], "chunksImbalance", "{f:#}");
    assert!(f["forSecs"].as_u64().unwrap() >= 600, "{f:#}");
    assert!(f["text"].as_str().unwrap().contains("saw none"), "{f:#}");
    // Five minutes in: not yet.
    let early = replay_json(&path, Some("300")).await;
    assert_eq!(early["conformance"]["status"], "conforms", "{early:#}");
    // The same cluster with its balancer stopped: nothing to compare.
    let stopped: Vec<Cluster> = (states.iter())
        .map(|st| {
            let mut st = st.clone();
            st.settings.balancer_enabled = false;
            st
        })
        .collect();
    let path = dir.path().join("stopped.ndjson");
    write_recording(&path, &stopped);
    let off = replay_json(&path, None).await;
    assert_eq!(off["conformance"]["status"], "unknown", "{off:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explain_panel_answers_from_the_latest_poll() {
    use shardtop::source::{SourceControl, SourceEvent};
    use tokio::sync::mpsc;
    let mut s = sim("add-shard", "7.0");
    s.run_until(31_000);
    let (server, uri) = super::helpers::serve_paused(s).await;
    let client = LiveClient::connect(&uri, Duration::from_secs(5))
        .await
        .unwrap();
    let mut poller = Poller::new(client);
    poller.poll(shardtop::live::poller::now_ms()).await.unwrap();
    let (out, mut from_source) = mpsc::channel(64);
    let (ctl, controls) = mpsc::channel(16);
    let past = shardtop::source::past::Past::keeping(60);
    let task = tokio::spawn(shardtop::source::live::run_live(
        poller,
        "serve".into(),
        (
            Duration::from_secs(3600),
            shardtop::source::live::HeatMode::Off.into(),
            past,
        ),
        out,
        controls,
    ));
    let mut request = shardtop::view::ViewRequest::default();
    let first = loop {
        if let Some(SourceEvent::View(v)) = from_source.recv().await {
            break v;
        }
    };
    assert_eq!(first.explain, None, "not asked for");
    request.explain = true;
    ctl.send(SourceControl::View(request)).await.unwrap();
    let v = loop {
        if let Some(SourceEvent::View(v)) = from_source.recv().await
            && v.explain.is_some()
        {
            break v;
        }
    };
    let panel = v.explain.clone().unwrap();
    assert_eq!(panel.rows.len(), 4, "{panel:?}");
    // A poll reads each shard's totals, not each chunk's documents.
    assert!(
        panel
            .rows
            .iter()
            .any(|r| r.unknown.iter().any(|u| u == "chunkTooBig")),
        "{panel:?}"
    );
    assert!(panel.next.starts_with("next: "), "{panel:?}");
    // One poll: conformance unknown.
    assert_eq!(
        v.conformance.as_ref().map(|c| c.status),
        Some(Status::Unknown)
    );
    // Drawn as on the other sources.
    let mut app = shardtop::ui::App::new((120, 40), true, 1.0, false);
    app.explain = true;
    app.apply(SourceEvent::View(v));
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
    terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
    let screen = format!("{}", terminal.backend());
    assert!(screen.contains("Explain · "), "{screen}");
    assert!(
        screen.contains("unknown: ") && screen.contains("chunkTooBig"),
        "{screen}"
    );
    drop(ctl);
    drop(from_source);
    let _ = task.await;
    server.shutdown().await;
}
