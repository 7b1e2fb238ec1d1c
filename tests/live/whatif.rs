//! `shardtop whatif mongodb://…` against `serve`: the what-if reads only allowlisted commands
//! (nothing is written to the cluster: serve's state is unchanged), and its prediction after
//! `addShard` is within 20% of what serve's own simulator then does with the same shard added, its
//! migration rate measured from serve's changelog.
//!
//! serve's clock runs on the wall clock unless paused, so "what serve then does" is its simulator
//! (the very state it serves, paused) run in virtual time with the same `addShard`: deterministic,
//! not timing-dependent.

use serde_json::Value;
use shardtop::sim::whatif::{Changes, predict};
use shardtop::sim::{Simulator, scenario};

use super::helpers::shardtop;

async fn serve(sim: Simulator, log: std::path::PathBuf) -> (shardtop::serve::Server, String) {
    super::helpers::serve_with(sim, |o| o.command_log = Some(log)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whatif_of_serve_reads_only_and_predicts_its_balance_within_20_percent() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("commands.ndjson");
    let sc = scenario::built_in("add-shard").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some("8.0".parse().unwrap())).unwrap();
    sim.run_until(60_000);
    let ns = sim.cluster.collections[0].ns.clone();
    let (server, uri) = serve(sim.clone(), log.clone()).await;
    let out = shardtop(
        ["whatif", &uri, "--ns", &ns, "--add-shards", "1", "--json"]
            .map(String::from)
            .to_vec(),
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    let before = shardtop(
        ["watch", &uri, "--once", "--json"]
            .map(String::from)
            .to_vec(),
    )
    .await;
    server.shutdown().await;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["clock"], "unixSeconds", "{v}");
    let c = &v["collections"][0];
    assert_eq!(c["ns"], ns.as_str());
    // serve logs each migration's clonedBytes and its donor's step times: the rate is measured,
    // and it is serve's own cost model (1 s + bytes ÷ 32 MiB/s; the chunks are too alike in size
    // to tell the rate, so it is kept and the fixed cost fitted).
    let rate = (v["assumptions"].as_array().unwrap().iter())
        .find(|a| a["what"] == "migrationRate")
        .unwrap();
    assert_eq!(rate["how"], "measured", "{rate}");
    let note = rate["note"].as_str().unwrap();
    assert!(note.contains("1.0 s each + bytes ÷ 32.0 MiB/s"), "{note}");
    // Read-only: every command the what-if (and the watch after it) sent is allowlisted…
    let text = std::fs::read_to_string(&log).unwrap();
    let driver_own = ["isMaster", "ismaster", "hello", "endSessions", "ping"];
    let mut seen = 0;
    for line in text.lines() {
        let l: Value = serde_json::from_str(line).unwrap();
        let Some(cmd) = l["command"].as_str() else {
            continue;
        };
        assert!(
            shardtop::live::client::ALLOWED.contains(&cmd) || driver_own.contains(&cmd),
            "the what-if sent {cmd}: {line}"
        );
        seen += 1;
    }
    assert!(seen > 0);
    // … and the cluster still has the shards it had: the added one is the fork's only.
    let w: Value = serde_json::from_slice(&before.stdout).unwrap();
    let shards = w["shards"].as_array().unwrap();
    assert_eq!(shards.len(), sim.cluster.shards.len(), "{w}");
    assert!(shards.iter().all(|s| s["id"] != "added01"), "{w}");
    // What serve's simulator then does with the same shard added, in virtual time.
    let forked = sim.now_ms();
    let changes = Changes {
        add_shards: 1,
        ..Changes::default()
    };
    let truth = predict(sim, 0, &changes, forked + 24 * 3600 * 1000);
    let truth_ms = truth.collection.balanced_at_ms.expect("serve balances") - forked;
    assert!(truth.collection.migrations > 0);
    let predicted_ms =
        ((c["balancedAt"].as_f64().unwrap() - v["forkedAt"].as_f64().unwrap()) * 1000.0) as u64;
    let error = predicted_ms.abs_diff(truth_ms) as f64 / truth_ms as f64;
    eprintln!("whatif of serve: predicted {predicted_ms} ms to balance, serve takes {truth_ms} ms");
    assert!(
        error <= 0.2,
        "predicted {predicted_ms} ms to balance, serve takes {truth_ms} ms ({:.0}% off): {v}",
        error * 100.0
    );
}
