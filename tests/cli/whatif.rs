//! `shardtop whatif` through the real binary: a `sim:` source with shards added (JSON and text),
//! a trace at `--at` whose drain a jumbo chunk blocks, and bad arguments (exit 2, naming them).
#![allow(clippy::unwrap_used)]

use super::process::{shardtop, stderr, stdout};

#[test]
fn whatif_a_sim_source_with_shards_added() {
    let args = [
        "whatif",
        "sim:add-shard@60s",
        "--ns",
        "app.items",
        "--add-shards",
        "2",
    ];
    let mut json = args.to_vec();
    json.push("--json");
    let o = shardtop(&json);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["source"], "sim:add-shard");
    assert_eq!(j["clock"], "virtualSeconds");
    assert_eq!(j["forkedAt"], 60.0);
    assert_eq!(j["addedShards"], serde_json::json!(["added01", "added02"]));
    let c = &j["collections"][0];
    assert_eq!(c["ns"], "app.items");
    let balanced = c["balancedAt"].as_f64().unwrap();
    assert!(
        balanced > 60.0 && c["lastMigrationAt"].as_f64().unwrap() <= balanced,
        "{c}"
    );
    assert!(c["migrations"].as_u64().unwrap() > 0 && c["bytesMoved"].as_u64().unwrap() > 0);
    let added = (c["shards"].as_array().unwrap().iter()).filter(|s| s["added"] == true);
    assert!(
        added.clone().count() == 2 && added.into_iter().all(|s| s["chunks"].as_u64() > Some(0))
    );
    // The simulator's own model and scenario are assumptions, never "measured"; its chunks'
    // sizes are read off its state.
    let how: Vec<(&str, &str)> = (j["assumptions"].as_array().unwrap().iter())
        .map(|a| (a["what"].as_str().unwrap(), a["how"].as_str().unwrap()))
        .collect();
    assert_eq!(
        how,
        [
            ("migrationRate", "assumed"),
            ("writes", "assumed"),
            ("chunkSizes", "measured")
        ]
    );
    let o = shardtop(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("balanced at") && text.contains("after the fork"),
        "{text}"
    );
    assert!(
        text.contains("added01") && text.contains("(added)"),
        "{text}"
    );
}

#[test]
fn whatif_a_trace_whose_drain_a_jumbo_chunk_blocks() {
    let dir = std::env::temp_dir().join(format!("shardtop-whatif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("drain.trace");
    let t = trace.to_str().unwrap();
    let o = shardtop(&["sim", "drain", "--until", "120", "--record", t]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = shardtop(&[
        "whatif",
        t,
        "--at",
        "90s",
        "--ns",
        "shop.orders",
        "--until",
        "1h",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["forkedAt"], 90.0);
    let c = &j["collections"][0];
    // The policy has nothing it can move (the draining shard holds only a jumbo chunk): MongoDB
    // calls that compliant, but a shard still draining is not balanced; with no scheduled
    // forceJumbo in a trace the drain waits on that chunk for good, and says so.
    assert!(c["balancedAt"].is_null(), "{c}");
    assert!(
        (c["notBalancedWhy"].as_str().unwrap()).contains("a draining shard still holds its chunks"),
        "{c}"
    );
    assert_eq!(j["drains"][0]["shard"], "shard0003", "{j}");
    assert!(j["drains"][0]["drainedAt"].is_null(), "{j}");
    assert_eq!(j["endedAt"], 90.0 + 3600.0, "{j}");
    assert!(
        (c["blockers"].as_array().unwrap().iter())
            .any(|b| b["detail"].as_str().unwrap().contains("the drain waits")),
        "{c}"
    );
    let writes = (j["assumptions"].as_array().unwrap().iter())
        .find(|a| a["what"] == "writes")
        .unwrap();
    // The trace's 60,000 inserts all come in its first 30 s: at 90 s the writes have stopped,
    // and they stay stopped in the fork.
    assert_eq!(writes["how"], "measured", "{writes}");
    assert!(
        (writes["note"].as_str().unwrap()).contains("the writes stopped, and stay stopped"),
        "{writes}"
    );
    // Forked while they still come, they go on at the rate measured.
    let o = shardtop(&[
        "whatif",
        t,
        "--at",
        "20s",
        "--ns",
        "shop.orders",
        "--until",
        "60",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let writes = (j["assumptions"].as_array().unwrap().iter())
        .find(|a| a["what"] == "writes")
        .unwrap();
    assert!(
        (writes["note"].as_str().unwrap()).starts_with("growth of +"),
        "{writes}"
    );
    // A trace of the simulator keeps no changelog to measure migrations from.
    let rate = (j["assumptions"].as_array().unwrap().iter())
        .find(|a| a["what"] == "migrationRate")
        .unwrap();
    assert_eq!(rate["how"], "assumed");
    assert!(
        (rate["note"].as_str().unwrap())
            .ends_with("(not calibrated: a simulator's trace keeps no changelog)"),
        "{rate}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_exit_2_naming_them() {
    for (args, named) in [
        (vec!["sim:nope", "--ns", "a.b"], "sim:nope"),
        (vec!["sim:drain@10s", "--ns", "no.such"], "--ns no.such"),
        (
            vec!["sim:drain@10s", "--ns", "shop.orders", "--drain", "x"],
            "--drain x",
        ),
        (
            vec!["sim:drain@10s", "--ns", "shop.orders", "--window", "9-5"],
            "--window",
        ),
        (
            vec![
                "sim:drain@10s",
                "--ns",
                "shop.orders",
                "--balancer",
                "maybe",
            ],
            "--balancer",
        ),
        (
            vec!["sim:drain@10s", "--ns", "shop.orders", "--chunk-size", "0"],
            "--chunk-size",
        ),
        (
            vec!["sim:drain@10s", "--ns", "shop.orders", "--reshard", "{x"],
            "--reshard",
        ),
        (
            vec!["sim:drain@10s", "--ns", "shop.orders", "--until", "soon"],
            "--until",
        ),
    ] {
        let mut all = vec!["whatif"];
        all.extend(&args);
        let o = shardtop(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(named), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn whatif_refuses_more_shards_than_the_bound_naming_it() {
    for (n, says) in [
        ("1000000", "--add-shards 1000000: too many shards"),
        ("9998", "the cluster has 3 already"),
    ] {
        let o = shardtop(&[
            "whatif",
            "sim:ascending",
            "--ns",
            "app.events",
            "--add-shards",
            n,
        ]);
        assert_eq!(o.status.code(), Some(2), "{n}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(says) && e.contains("at most 10000 shards"),
            "{e}"
        );
    }
}

/// A key of `n` fields `f0`…: `{"f0": 1, "f1": 1, …}`.
fn key_of(n: usize) -> String {
    let fields: Vec<String> = (0..n).map(|i| format!("\"f{i}\": 1")).collect();
    format!("{{{}}}", fields.join(", "))
}

#[test]
fn reshard_to_a_key_of_more_than_32_fields_is_refused() {
    for n in [33, 200] {
        let key = key_of(n);
        let o = shardtop(&[
            "whatif",
            "sim:drain@10s",
            "--ns",
            "shop.orders",
            "--reshard",
            &key,
        ]);
        assert_eq!(o.status.code(), Some(2), "{n}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "a shard key pattern has at most 32 fields (an index on it holds at most 32); this one has {n}"
            )),
            "{n}: {}",
            stderr(&o)
        );
    }
    // 32 fields are a key (the simulation of resharding to it may go on).
    let o = shardtop(&[
        "whatif",
        "sim:drain@10s",
        "--ns",
        "shop.orders",
        "--reshard",
        &key_of(32),
        "--until",
        "60",
    ]);
    assert!(!stderr(&o).contains("at most 32 fields"), "{}", stderr(&o));
}
