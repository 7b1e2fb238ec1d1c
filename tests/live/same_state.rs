//! The same state through three sources says the same thing: `sim:drain-orphans@140s`, a trace of
//! it at 140 s and a capture of `serve` running it, paused at 140 s — the same status, cause and
//! next move in `explain`, and no estimate while stalled (issue 44: "whatif and explain of the
//! same state through sim:, a trace and a capture of a paused serve are equal, except where a
//! source lacks something, which the output says").

use serde_json::Value;
use shardtop::sim::{Simulator, scenario};

use super::helpers::{serve_paused, shardtop};

fn explained(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnosis"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_drain_says_the_same_from_the_simulator_a_trace_and_a_capture_of_serve() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario::built_in("drain-orphans").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(140_000);
    let (server, uri) = serve_paused(sim).await;
    let capture = dir.path().join("serve.capture");
    let c = capture.display().to_string();
    let out = shardtop(["capture", &uri, "-o", &c].map(String::from).to_vec()).await;
    server.shutdown().await;
    assert!(out.status.success(), "{out:?}");
    let trace = dir.path().join("d.trace");
    let t = trace.display().to_string();
    let rec = ["sim", "drain-orphans", "--until", "140", "--record", &t];
    assert!(
        shardtop(rec.map(String::from).to_vec())
            .await
            .status
            .success()
    );
    let explain = |source: &str, at: Option<&str>| {
        let mut args = vec!["explain", source, "--ns", "app.events", "--json"];
        if let Some(at) = at {
            args.extend(["--at", at]);
        }
        shardtop(args.into_iter().map(String::from).collect())
    };
    let of_sim = explained(&explain("sim:drain-orphans@140s", None).await);
    let of_trace = explained(&explain(&t, Some("140s")).await);
    let of_capture = explained(&explain(&c, None).await);
    for (what, d) in [("trace", &of_trace), ("capture", &of_capture)] {
        assert_eq!(d["status"], of_sim["status"], "{what}: {d}\nsim: {of_sim}");
        assert_eq!(d["cause"]["rule"], of_sim["cause"]["rule"], "{what}: {d}");
        assert_eq!(d["eta"]["basis"], "unknown", "{what}: {d}");
        for k in ["from", "to", "reason"] {
            assert_eq!(
                d["next"][k], of_sim["next"][k],
                "{what} next.{k}: {d}\nsim: {of_sim}"
            );
        }
    }
    assert_eq!(of_sim["status"], "stalled", "{of_sim}");
}
