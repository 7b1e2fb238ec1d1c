//! `shardtop scenarios` and `shardtop sim` through the real binary.
#![allow(clippy::unwrap_used)]

use super::process::{shardtop, shardtop_env, stderr, stdout};

#[test]
fn scenarios_lists_every_built_in_scenario_with_its_description_and_seed() {
    let o = shardtop(&["scenarios", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list: Vec<serde_json::Value> = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = list.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "ascending",
            "random",
            "hashed",
            "low-cardinality",
            "loglevel",
            "hot-customer",
            "reshard",
            "add-shard",
            "manual",
            "zones-ip",
            "multi-hotspot",
            "gridfs",
            "drain",
            "drain-orphans",
            "auto-merge",
            "orphans",
            "defragment",
            "move-collection",
            "firehose",
            "zones-gdpr"
        ]
    );
    for s in &list {
        assert!(!s["description"].as_str().unwrap().is_empty());
        assert!(!s["lesson"].as_str().unwrap().is_empty());
        assert!(s.get("seedPassage").is_none(), "{s}");
    }
    let text = stdout(&shardtop(&["scenarios"]));
    assert!(
        text.contains("low-cardinality") && text.contains("cannot be split"),
        "{text}"
    );
    assert!(!text.contains("seed"), "{text}");
}

#[test]
fn scenarios_wrap_to_the_width_of_the_terminal() {
    let o = shardtop_env(&["scenarios"], &[("COLUMNS", "80")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
    }
    // Nothing lost in the wrapping: every word of the one-line listing is in the wrapped one.
    let whole = stdout(&shardtop_env(&["scenarios"], &[("COLUMNS", "")]));
    let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(words(&text), words(&whole));
    assert!(whole.lines().any(|l| l.chars().count() > 80), "{whole}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("low-cardinality  A value")),
        "{text}"
    );
}

#[test]
fn sim_json_follows_the_contract() {
    let o = shardtop(&["sim", "ascending", "--json", "--chunks"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["format"], "shardtop-summary");
    assert_eq!(v["version"], 1);
    assert_eq!(v["source"], "sim:ascending");
    assert_eq!(v["time"], 300.0);
    assert_eq!(v["serverVersion"], "8.0");
    assert_eq!(v["balancer"]["mode"], "full");
    assert!(v["balancer"]["migrations"]["completed"].as_u64().unwrap() > 0);
    assert_eq!(v["shards"].as_array().unwrap().len(), 3);
    let c = &v["collections"][0];
    assert_eq!(c["ns"], "app.events");
    assert_eq!(c["key"], serde_json::json!({"_id": 1}));
    let writes: Vec<u64> = c["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["writes"].as_u64().unwrap())
        .collect();
    assert_eq!(writes.iter().max(), Some(&10_000));
    // The inserts go on to 294 s: at 300 s the MaxKey chunk took every write of the last 60 s.
    assert_eq!(c["hottest"]["writeShare"], 1.0, "{}", c["hottest"]);
    assert_eq!(
        c["hottest"]["max"],
        serde_json::json!({"_id": {"$maxKey": 1}}),
        "{}",
        c["hottest"]
    );
    let chunks = c["chunkList"].as_array().unwrap();
    assert_eq!(chunks.len() as u64, c["chunks"].as_u64().unwrap());
    assert_eq!(chunks[0]["min"], serde_json::json!({"_id": {"$minKey": 1}}));
    let o = shardtop(&["sim", "ascending", "--until", "90", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let hottest = &v["collections"][0]["hottest"];
    assert_eq!(hottest["max"], serde_json::json!({"_id": {"$maxKey": 1}}));
    assert!(hottest["writeShare"].as_f64().unwrap() > 0.8, "{hottest}");
}

#[test]
fn sim_hashed_until_zero_has_the_six_boundaries_in_canonical_extended_json() {
    let o = shardtop(&["sim", "hashed", "--until", "0", "--json", "--chunks"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let mins: Vec<String> = v["collections"][0]["chunkList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["min"]["username"].to_string())
        .collect();
    assert_eq!(
        mins,
        [
            r#"{"$minKey":1}"#,
            r#"{"$numberLong":"-6148914691236517204"}"#,
            r#"{"$numberLong":"-3074457345618258602"}"#,
            r#"{"$numberLong":"0"}"#,
            r#"{"$numberLong":"3074457345618258602"}"#,
            r#"{"$numberLong":"6148914691236517204"}"#,
        ]
    );
}

#[test]
fn sim_text_reads_like_get_shard_distribution() {
    let o = shardtop(&["sim", "low-cardinality", "--events"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Shard shA"));
    assert!(text.contains("markJumbo"));
    assert!(text.contains(
        "CannotSplit (87): Unable to find median in chunk because chunk is indivisible."
    ));
    assert!(text.contains("Balancer: on (full)"));
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    for (args, needle) in [
        (vec!["sim", "nope"], "unknown scenario"),
        (
            vec!["sim", "ascending", "--server-version", "3.6"],
            "server version",
        ),
        (vec!["sim", "ascending", "--until", "-5"], "--until"),
        (
            vec!["sim", "--scenario-file", "/nonexistent/x.json"],
            "cannot read scenario file",
        ),
    ] {
        let o = shardtop(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn a_scenario_file_with_a_bad_field_is_named() {
    let dir = std::env::temp_dir().join(format!("shardtop-cli-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            r#"{"name": "x", "description": "d", "seedPassage": "p", "shards": 3, "collections": [{"ns": "a.b", "key": {"_id": 1}}], "workloads": [{"ns": "a.b", "rate": "fast", "docSize": 10, "fields": {}}], "until": 10}"#,
            "workloads[0].rate",
        ),
        (
            r#"{"name": "x", "description": "d", "seedPassage": "p", "shards": 3, "collections": [{"ns": "a.b", "key": {"_id": -1}}], "until": 10}"#,
            "collections[0].key",
        ),
        (
            r#"{"name": "x", "description": "d", "seedPassage": "p", "shards": 3, "colections": [], "until": 10}"#,
            "colections",
        ),
        (
            r#"{"name": "x", "description": "d", "seedPassage": "p", "shards": 3, "collections": [{"ns": "a.b", "key": {"_id": 1}}], "workloads": [{"ns": "a.b", "rate": 1, "docSize": 10, "fields": {"_id": {"uniform": {"min": 2, "max": 1}}}}], "until": 10}"#,
            "workloads[0].fields._id",
        ),
        ("not json", "field"),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = dir.join(format!("{i}.json"));
        std::fs::write(&path, text).unwrap();
        let o = shardtop(&["sim", "--scenario-file", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "case {i}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "case {i}: {}", stderr(&o));
    }
    let ok = dir.join("ok.json");
    // A user's file needs no `seedPassage` (nor `lesson`).
    std::fs::write(&ok, r#"{"name": "mine", "description": "d", "shards": 2, "collections": [{"ns": "a.b", "key": {"k": 1}}], "workloads": [{"ns": "a.b", "rate": 50, "count": 100, "docSize": 10, "fields": {"k": {"sequence": {}}}}], "until": 5}"#).unwrap();
    let o = shardtop(&["sim", "--scenario-file", ok.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["collections"][0]["shards"][0]["docs"], 100);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn record_then_replay_through_the_binary() {
    let dir = std::env::temp_dir().join(format!("shardtop-cli-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("hashed.ndjson.zst");
    let sim = shardtop(&[
        "sim",
        "hashed",
        "--json",
        "--record",
        trace.to_str().unwrap(),
    ]);
    assert!(sim.status.success(), "{}", stderr(&sim));
    let replay = shardtop(&["replay", trace.to_str().unwrap(), "--json"]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    let mut a: serde_json::Value = serde_json::from_str(&stdout(&sim)).unwrap();
    let mut b: serde_json::Value = serde_json::from_str(&stdout(&replay)).unwrap();
    assert_eq!(b["source"], format!("replay:{}", trace.display()));
    a["source"] = serde_json::Value::Null;
    b["source"] = serde_json::Value::Null;
    assert_eq!(a, b);
    let at0 = shardtop(&["replay", trace.to_str().unwrap(), "--json", "--at", "0"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&at0)).unwrap();
    assert_eq!(v["time"], 0.0);
    assert_eq!(v["collections"][0]["chunks"], 6);

    let no_tui = shardtop(&["replay", trace.to_str().unwrap()]);
    assert_eq!(no_tui.status.code(), Some(2));
    assert!(stderr(&no_tui).contains("--json"));
    let missing = shardtop(&[
        "replay",
        dir.join("missing.ndjson").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        missing.status.code(),
        Some(1),
        "an unreadable file is a runtime failure"
    );
    let bad = dir.join("bad.ndjson");
    std::fs::write(&bad, "{\"hello\": 1}\n").unwrap();
    let o = shardtop(&["replay", bad.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.ndjson:1: not a shardtop trace"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_refuses_an_event_earlier_than_the_one_before_it_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.ndjson");
    let t = trace.display().to_string();
    let o = shardtop(&["sim", "ascending", "--until", "60", "--record", &t]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // The first event after the first keyframe whose event before it is later than that
    // keyframe: moved back between the two (still after the keyframe).
    let (mut keyframe, mut before) = (None::<f64>, None::<(f64, usize)>);
    let mut changed = None;
    for (i, line) in lines.iter_mut().enumerate() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(at) = v.get("t").and_then(serde_json::Value::as_f64) else {
            continue;
        };
        if v.get("keyframe").is_some() {
            (keyframe, before) = (Some(at), None);
            continue;
        }
        if let (Some(k), Some((b, b_line))) = (keyframe, before)
            && b > k + 0.5
        {
            v["t"] = serde_json::json!(k + 0.25);
            *line = v.to_string();
            changed = Some((i + 1, b_line, k + 0.25, b));
            break;
        }
        before = Some((at, i + 1));
    }
    let (line, before_line, now, was) = changed.expect("an event to move back");
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let o = shardtop(&["replay", &t, "--json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "{t}:{line}: field `t`: {now} s is before the event before it ({was} s, line {before_line}): time goes backwards"
        )),
        "{}",
        stderr(&o)
    );
}
