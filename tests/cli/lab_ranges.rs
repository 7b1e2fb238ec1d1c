//! `shardtop lab` as a process, on what issue 34 added last: `numReadsByRange` /
//! `numWritesByRange` (and their heat strips), the chunks a range meets at the release line's
//! default chunk size beside the lab's layout, the shard-key updates that need a transaction,
//! and the final chunk map (`--chunk-map`). Every expected number is computed here from the data
//! and the traffic, not read from the lab.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use super::process::lab as run;

const DOCS: i64 = 1000;

/// `user` runs over 0..1000 in a shuffled order (7919 is prime to 1000), `region` one of 3.
fn user_of(i: i64) -> i64 {
    i * 7919 % DOCS
}

fn write_data(dir: &Path, pad: usize) -> (String, String) {
    let data = dir.join("users.json");
    let mut f = std::fs::File::create(&data).unwrap();
    for i in 0..DOCS {
        writeln!(
            f,
            r#"{{"_id": {i}, "user": {}, "region": "r{}", "pad": "{}"}}"#,
            user_of(i),
            i % 3,
            "x".repeat(pad)
        )
        .unwrap();
    }
    let work = dir.join("work.jsonl");
    std::fs::write(
        &work,
        [
            r#"{"find": {"user": 5}, "weight": 3}"#,
            r#"{"find": {"user": {"$gte": 100, "$lt": 200}}}"#,
            r#"{"find": {"region": "r1"}}"#,
            r#"{"update": {"user": 7}, "u": {"$set": {"user": 8}}, "weight": 2}"#,
            r#"{"update": {"region": "r2"}, "u": {"$set": {"user": 1}}, "multi": true}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    (
        data.to_str().unwrap().to_string(),
        work.to_str().unwrap().to_string(),
    )
}

/// `analyzeShardKey`'s split points over 1,000 distinct users: the 10th, 20th, … sorted value.
fn split_points() -> Vec<i64> {
    (0..99).map(|i| 10 * i + 9).collect()
}

/// The range holding `user`: the split points at or below it.
fn range_of(user: i64) -> usize {
    split_points().iter().filter(|&&s| s <= user).count()
}

fn json(args: &[&str]) -> Value {
    let o = run(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn counts(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect()
}

#[test]
fn reads_and_writes_by_range_are_analyze_shard_keys() {
    let dir = tempfile::tempdir().unwrap();
    let (data, work) = write_data(dir.path(), 100);
    let report = json(&[
        "--data",
        &data,
        "--workload",
        &work,
        "--key",
        r#"{"user": 1}"#,
        "--key",
        r#"{"region": 1}"#,
        "--json",
    ]);
    let user = &report["candidates"][0];
    // Reads: find({user: 5}) ×3 in its range, the range query in every range from 100's to
    // 200's (its max is counted inclusive, as `forEachOverlappingChunk` does), the
    // scatter-gather in all.
    let mut reads = vec![1u64; 100];
    reads[range_of(5)] += 3;
    for n in &mut reads[range_of(100)..=range_of(200)] {
        *n += 1;
    }
    assert_eq!(counts(&user["reads"]["numReadsByRange"]), reads);
    // Writes: the update by user 7 ×2 in its range; the multi update by region in all.
    let mut writes = vec![1u64; 100];
    writes[range_of(7)] += 2;
    assert_eq!(counts(&user["writes"]["numWritesByRange"]), writes);
    assert!(user["byRangeError"].is_null());
    // Three regions make four ranges, not 100: analyzeShardKey's error 4952606.
    let region = &report["candidates"][1];
    assert!(region["reads"].get("numReadsByRange").is_none());
    let error = region["byRangeError"].as_str().unwrap();
    assert!(error.contains("it can only make 4 chunks"), "{error}");

    // The text report draws both as heat strips, one glyph a range.
    let o = run(&[
        "--data",
        &data,
        "--workload",
        &work,
        "--key",
        r#"{"user": 1}"#,
        "--key",
        r#"{"region": 1}"#,
        "--text",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    let strip = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("reads by range  |"))
        .unwrap();
    let cells: Vec<char> = strip.chars().take_while(|c| *c != '|').collect();
    assert_eq!(cells.len(), 100, "{strip}");
    // The busiest range (4 reads) is full, a range of 1 read an eighth at least.
    assert_eq!(cells[0], '█');
    assert_eq!(cells[99], '▂');
    assert!(text.contains("the key makes only 4 of analyzeShardKey's 100 ranges"));
}

#[test]
fn shard_key_updates_are_counted_and_ranges_said_at_the_default_chunk_size() {
    let dir = tempfile::tempdir().unwrap();
    // 1,000 documents of 20 KB: 20 MB, twenty of the lab's 1 MB chunks, not one default chunk.
    let (data, work) = write_data(dir.path(), 20_000);
    for (version, mb) in [("8.0", 128), ("5.0", 64)] {
        let report = json(&[
            "--data",
            &data,
            "--workload",
            &work,
            "--key",
            r#"{"user": 1}"#,
            "--key",
            r#"{"region": 1, "user": 1}"#,
            "--server-version",
            version,
            "--json",
        ]);
        let user = &report["candidates"][0];
        // Both updates set `user`; the second has no equality on it and is multi.
        assert_eq!(
            user["shardKeyUpdates"],
            serde_json::json!({"operations": 2, "weight": 3, "withoutFullShardKey": 1, "multi": 1})
        );
        let verdict = user["verdict"].as_str().unwrap();
        assert!(
            verdict.contains(
                "shard-key updates: 2 of 2 writes change the key (each needs a transaction or a \
                 retryable write), 1 without an equality on the whole key, 1 multi (refused)"
            ),
            "{verdict}"
        );
        assert_eq!(user["queries"][3]["updatesShardKey"], true);
        assert_eq!(user["queries"][0]["updatesShardKey"], false);
        // 20 MB is under one default chunk.
        assert_eq!(user["defaultChunkSizeMB"], mb);
        assert_eq!(user["chunksAtDefaultSize"], 1);
        // The range query (a tenth of the users, 2 MB) meets several of the lab's 1 MB chunks,
        // one at the default size.
        let range = &user["queries"][1];
        assert_eq!(range["dispatch"], "multiShard");
        assert!(range["chunks"].as_u64().unwrap() > 1, "{range}");
        assert_eq!(range["chunksAtDefaultSize"], 1);
        assert!(
            verdict.contains(&format!("one chunk at {mb} MB")),
            "{verdict}"
        );
        // The compound key's prefix query is a targeted range, not a scatter-gather.
        let compound = &report["candidates"][1];
        assert_eq!(compound["queries"][2]["dispatch"], "multiShard");
    }
}

#[test]
fn the_chunk_map_is_each_candidates_final_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let (data, work) = write_data(dir.path(), 100);
    let map = dir.path().join("chunks.json");
    let map_s = map.to_str().unwrap();
    let args = [
        "--data",
        &data,
        "--workload",
        &work,
        "--key",
        r#"{"user": 1}"#,
        "--key",
        r#"{"region": 1}"#,
        "--json",
        "--chunk-map",
        map_s,
    ];
    let report = json(&args);
    let chunks: Value = serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    assert_eq!(chunks["format"], "shardtop-lab-chunks");
    for (i, field) in ["user", "region"].iter().enumerate() {
        let list = chunks["candidates"][i]["chunks"].as_array().unwrap();
        assert_eq!(
            chunks["candidates"][i]["key"],
            serde_json::json!({*field: 1})
        );
        assert_eq!(list.len() as u64, report["candidates"][i]["chunks"]);
        assert_eq!(list[0]["min"], serde_json::json!({*field: {"$minKey": 1}}));
        assert_eq!(
            list[list.len() - 1]["max"],
            serde_json::json!({*field: {"$maxKey": 1}})
        );
        for w in list.windows(2) {
            assert_eq!(w[0]["max"], w[1]["min"], "chunks follow each other");
        }
        let docs: u64 = list.iter().map(|c| c["docs"].as_u64().unwrap()).sum();
        assert_eq!(docs, DOCS as u64);
        let shards: BTreeSet<&str> = list.iter().map(|c| c["shard"].as_str().unwrap()).collect();
        let known: BTreeSet<&str> = report["candidates"][i]["writes"]["shards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["shard"].as_str().unwrap())
            .collect();
        assert!(shards.is_subset(&known), "{shards:?} {known:?}");
    }
    // The user key's chunks hold exactly the users in their bounds.
    let list = chunks["candidates"][0]["chunks"].as_array().unwrap();
    for c in list {
        let bound = |b: &Value| b["user"].as_i64();
        let lo = bound(&c["min"]).unwrap_or(i64::MIN);
        let hi = bound(&c["max"]).unwrap_or(i64::MAX);
        let expected = (0..DOCS).filter(|&u| lo <= u && u < hi).count() as u64;
        assert_eq!(c["docs"].as_u64().unwrap(), expected, "{c}");
    }
    // Written again: refused without --force (exit 2, the file named), replaced with it.
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already exists; give --force"));
    let mut forced = args.to_vec();
    forced.push("--force");
    json(&forced);
}
