//! `shardtop explain` through the real binary: a `sim:` source in text and JSON, a trace file
//! with `--at`, and bad arguments (exit 2, naming the argument).
#![allow(clippy::unwrap_used)]

use super::process::{shardtop, stderr, stdout};

/// `shardtop explain sim:drain@60s --ns shop.orders EXTRA…`.
fn explain_drain(extra: &[&str]) -> std::process::Output {
    let head = ["explain", "sim:drain@60s", "--ns", "shop.orders"];
    shardtop(&[&head[..], extra].concat())
}

#[test]
fn explain_a_sim_source_as_json_and_text() {
    let o = explain_drain(&["--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["ns"], "shop.orders");
    assert!(!j["shards"].as_array().unwrap().is_empty());
    let o = explain_drain(&["--key", r#"{"customerId": 5}"#]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("(key)") && text.contains("next:"), "{text}");
    assert!(text.contains("balancer_policy.cpp"), "{text}");
}

#[test]
fn explain_key_takes_mongosh_syntax_as_t_does() {
    let run = |key: &str| {
        let o = explain_drain(&["--key", key, "--json"]);
        assert!(o.status.success(), "{key}: {}", stderr(&o));
        stdout(&o)
    };
    let shell = run("{customerId: 5}");
    assert_eq!(shell, run(r#"{"customerId": 5}"#));
    assert_eq!(shell, run("{ 'customerId': NumberLong(5), }"));
    let o = explain_drain(&["--key", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("{x: 5}"), "{}", stderr(&o));
}

#[test]
fn explain_help_lists_every_source() {
    let help = stdout(&shardtop(&["explain", "--help"]));
    for source in [
        "sim:SCENARIO[@T]",
        "a capture file",
        "a trace file",
        "mongodb://",
    ] {
        assert!(help.contains(source), "{source}: {help}");
    }
    assert!(help.contains("mongosh's syntax"), "{help}");
}

#[test]
fn explain_a_trace_at_a_time() {
    let dir = std::env::temp_dir().join(format!("shardtop-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("drain.trace");
    let t = trace.to_str().unwrap();
    let o = shardtop(&["sim", "drain", "--until", "120", "--record", t]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = shardtop(&["explain", t, "--at", "90s", "--ns", "shop.orders", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["ns"], "shop.orders");
    let o = shardtop(&["explain", t, "--at", "1h", "--ns", "shop.orders"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--at"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_exit_2_naming_them() {
    for (args, named) in [
        (vec!["sim:nope", "--ns", "a.b"], "sim:nope"),
        (vec!["sim:drain@soon", "--ns", "a.b"], "sim:drain@soon"),
        (vec!["/no/such.trace", "--ns", "a.b"], "/no/such.trace"),
        (vec!["sim:drain@10s", "--ns", "no.such"], "--ns no.such"),
        (
            vec!["sim:drain@10s", "--ns", "shop.orders", "--key", "{x"],
            "--key",
        ),
        (
            vec![
                "sim:drain@10s",
                "--ns",
                "shop.orders",
                "--key",
                r#"{"x": 1}"#,
            ],
            "customerId",
        ),
        (
            vec!["mongodb://localhost:1", "--at", "5s", "--ns", "a.b"],
            "--at",
        ),
        (vec!["sim:drain", "--at", "5s", "--ns", "a.b"], "--at"),
    ] {
        let mut all = vec!["explain"];
        all.extend(&args);
        let o = shardtop(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(named), "{args:?}: {}", stderr(&o));
    }
}
