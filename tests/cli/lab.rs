#![allow(clippy::unwrap_used)]
//! `shardtop lab` run as a real process: the example's markdown table and JSON, a data file and
//! a workload of one's own (laid out, or from empty, or in another order), and every bad input
//! with its message and exit code 2.

use std::io::Write;
use std::path::Path;

use super::process::{lab as run, stderr, stdout};

fn refused(args: &[&str], words: &str) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(words), "{args:?}: {}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

/// `n` events of a device: `seq` ascending, `device` one of 40, `kind` one of 3.
fn write_events(path: &Path, n: u32) {
    let mut f = std::fs::File::create(path).unwrap();
    for i in 0..n {
        writeln!(
            f,
            r#"{{"_id": {{"$oid": "{:024x}"}}, "seq": {i}, "device": "d{}", "kind": "k{}", "pad": "{}"}}"#,
            u64::from(i) + 1,
            i * 7 % 40,
            i % 3,
            "x".repeat(200)
        )
        .unwrap();
    }
}

#[test]
fn the_example_prints_seed_003s_table_and_its_json() {
    let o = run(&["--example", "orders", "--markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 6, "{table}");
    assert!(rows[0].starts_with("| Key | Write distribution | `find({customerId: 4242})` |"));
    // No shard key in the filter is a scatter-gather; a customer's orders under the compound
    // key are a targeted range (analyzeShardKey's multi-shard) that the layout keeps in a chunk.
    assert!(
        rows[2]
            .starts_with("| `{_id: 1}` | all inserts to one shard (monotonic) | scatter-gather |"),
        "{}",
        rows[2]
    );
    assert!(
        rows[5].starts_with(
            "| `{customerId: 1, placedAt: 1}` | spread across customerId values | range: 1 chunk (1 at 128 MB) | range: 1 chunk (1 at 128 MB) | range: 1 chunk (1 at 128 MB) | scatter-gather |"
        ),
        "{}",
        rows[5]
    );
    let o = run(&["--example", "orders", "--json", "--shards", "4"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["format"], "shardtop-lab");
    assert_eq!(json["shards"], 4);
    assert_eq!(json["candidates"].as_array().unwrap().len(), 4);
    assert_eq!(
        json["candidates"][2]["writes"]["shards"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn a_data_file_of_ones_own_is_laid_out_or_started_from_empty() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("events.json");
    write_events(&data, 6000);
    let work = dir.path().join("work.jsonl");
    std::fs::write(
        &work,
        "{\"find\": {\"device\": \"d7\"}, \"weight\": 3}\n{\"find\": {\"seq\": {\"$gte\": 10, \"$lt\": 20}}}\n",
    )
    .unwrap();
    let d = data.to_str().unwrap();
    let w = work.to_str().unwrap();
    let keys = [
        "--key",
        r#"{"seq": 1}"#,
        "--key",
        r#"{"device": 1, "seq": 1}"#,
    ];
    for extra in [
        &[][..],
        &["--from-empty"][..],
        &["--order-by", "device"][..],
    ] {
        let mut args = vec![
            "--data",
            d,
            "--workload",
            w,
            "--json",
            "--num-initial-chunks",
            "6",
        ];
        args.extend(keys);
        args.extend(extra);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(json["documents"], 6000);
        assert_eq!(json["queries"], 2);
        let seq = &json["candidates"][0];
        let device = &json["candidates"][1];
        assert_eq!(
            device["queries"][0]["targeting"], "SINGLE_SHARD",
            "{extra:?}"
        );
        assert_eq!(seq["queries"][1]["targeting"], "SINGLE_SHARD", "{extra:?}");
        assert_eq!(seq["keyCharacteristics"]["numDistinctValues"], 6000);
        if extra.is_empty() || extra[0] == "--from-empty" {
            // The file's order is seq's: every new insert lands on one shard.
            assert_eq!(
                seq["keyCharacteristics"]["monotonicity"]["type"],
                "monotonic"
            );
            assert_eq!(seq["writes"]["maxShardShare"], 1.0, "{extra:?}");
        } else {
            // Ordered by device, seq no longer rises with the record ids.
            assert_eq!(
                seq["keyCharacteristics"]["monotonicity"]["type"],
                "not monotonic"
            );
        }
    }
}

#[test]
fn bad_candidates_and_options_are_refused_with_exit_2() {
    refused(
        &[
            "--example",
            "orders",
            "--key",
            "{a: 1}",
            "--key",
            r#"{"b": 1}"#,
        ],
        "--key {a: 1}: not a valid key pattern",
    );
    refused(
        &[
            "--example",
            "orders",
            "--key",
            r#"{"a": 2}"#,
            "--key",
            r#"{"b": 1}"#,
        ],
        r#"--key {"a": 2}: not a valid key pattern"#,
    );
    refused(
        &["--example", "orders", "--key", r#"{"a": 1}"#],
        "give 2 to 6 candidate keys with --key (got 1)",
    );
    refused(
        &[
            "--example",
            "orders",
            "--key",
            r#"{"a": 1}"#,
            "--key",
            r#"{"a": 1}"#,
        ],
        r#"--key {"a": 1}: given twice"#,
    );
    refused(
        &["--example", "orders", "--shards", "0"],
        "--shards: 1 to 1000",
    );
    refused(
        &["--example", "orders", "--chunk-size", "0"],
        "--chunk-size",
    );
    refused(&["--example", "orders", "--initial", "101"], "--initial");
    refused(&["--example", "orders", "--rate", "0"], "--rate");
    refused(
        &["--example", "orders", "--unique", "[1]"],
        "--unique [1]: not a valid key pattern",
    );
    refused(
        &["--example", "orders", "--server-version", "2.6"],
        "--server-version",
    );
    refused(
        &[
            "--data",
            "/nonexistent/orders.json",
            "--key",
            r#"{"a": 1}"#,
            "--key",
            r#"{"b": 1}"#,
        ],
        "/nonexistent/orders.json",
    );
    refused(&[], "--data");
}

#[test]
fn a_malformed_data_or_workload_line_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("orders.json");
    std::fs::write(&data, "{\"a\": 1}\n{\"a\": 2}\n{\"a\": \n").unwrap();
    let d = data.to_str().unwrap();
    let keys = ["--key", r#"{"a": 1}"#, "--key", r#"{"a": "hashed"}"#];
    let mut args = vec!["--data", d, "--text"];
    args.extend(keys);
    refused(&args, &format!("{d}, line 3: "));
    let good = dir.path().join("good.json");
    write_events(&good, 10);
    let work = dir.path().join("work.jsonl");
    std::fs::write(&work, "{\"find\": {}}\n\n{\"fnd\": {}}\n").unwrap();
    let w = work.to_str().unwrap();
    let g = good.to_str().unwrap();
    let mut args = vec!["--data", g, "--workload", w, "--text"];
    args.extend(keys);
    refused(&args, &format!("{w}, line 3: unknown operation \"fnd\""));
}

/// `n` orders of two regions, `EU` and `US`, `seq` ascending.
fn write_regions(path: &Path, n: u32) {
    let mut f = std::fs::File::create(path).unwrap();
    for i in 0..n {
        let region = if i % 2 == 0 { "EU" } else { "US" };
        writeln!(
            f,
            r#"{{"seq": {i}, "region": "{region}", "pad": "{}"}}"#,
            "x".repeat(300)
        )
        .unwrap();
    }
}

#[test]
fn zones_apply_to_the_keys_that_start_with_their_fields() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("regions.json");
    write_regions(&data, 4000);
    let o = run(&[
        "--data",
        data.to_str().unwrap(),
        "--key",
        r#"{"region": 1, "seq": 1}"#,
        "--key",
        r#"{"seq": 1}"#,
        "--zone",
        "EU=shard0000",
        "--zone",
        "US=shard0001,shard0002",
        "--zone-range",
        r#"{"zone": "EU", "min": {"region": "EU"}, "max": {"region": "EU~"}}"#,
        "--zone-range",
        r#"{"zone": "US", "min": {"region": "US"}, "max": {"region": "US~"}}"#,
        "--num-initial-chunks",
        "12",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let zoned = &json["candidates"][0];
    assert_eq!(
        zoned["zones"],
        serde_json::json!([{"zone": "EU", "applied": true}, {"zone": "US", "applied": true}])
    );
    // Half the inserts are EU's, and EU's chunks are all on shard0000.
    assert_eq!(zoned["writes"]["shards"][0]["share"], 0.5, "{zoned}");
    let plain = &json["candidates"][1];
    assert_eq!(plain["zones"][0]["applied"], false);
    refused(
        &["--example", "orders", "--zone", "EU"],
        "--zone EU: give ZONE=SHARD[,SHARD…]",
    );
    refused(
        &["--example", "orders", "--zone", "EU=shard0009"],
        "--zone EU=shard0009:",
    );
    refused(
        &[
            "--example",
            "orders",
            "--zone-range",
            r#"{"zone": "EU", "min": {"a": 1}, "max": {"b": 2}}"#,
        ],
        "`min` and `max` must name the same fields",
    );
}

#[test]
fn a_mongodump_source_brings_its_unique_indexes_from_its_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("orders.bson");
    let mut bytes = Vec::new();
    for i in 0..300 {
        let d = bson::doc! {"_id": i, "customerId": i % 30, "orderNo": i / 30};
        bytes.extend(bson::to_vec(&d).unwrap());
    }
    std::fs::write(&data, bytes).unwrap();
    std::fs::write(
        dir.path().join("orders.metadata.json"),
        r#"{"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"},{"v":{"$numberInt":"2"},"unique":true,"key":{"customerId":{"$numberInt":"1"},"orderNo":{"$numberInt":"-1"}},"name":"c_o"}],"uuid":"0123","collectionName":"orders","type":"collection"}"#,
    )
    .unwrap();
    let d = data.to_str().unwrap();
    let o = run(&[
        "--data",
        d,
        "--key",
        r#"{"customerId": 1}"#,
        "--key",
        r#"{"orderNo": 1}"#,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["documents"], 300);
    let allowed: Vec<&serde_json::Value> = json["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["uniqueIndexes"][0]["allowed"])
        .collect();
    assert_eq!(allowed, [true, false]);
    std::fs::write(
        dir.path().join("orders.metadata.json"),
        "{\"indexes\": [3]}",
    )
    .unwrap();
    refused(
        &[
            "--data",
            d,
            "--key",
            r#"{"customerId": 1}"#,
            "--key",
            r#"{"orderNo": 1}"#,
            "--text",
        ],
        "orders.metadata.json: indexes[0] is not a document",
    );
}

#[test]
fn the_verdict_names_missing_fields_and_a_key_no_document_has_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    let mut f = std::fs::File::create(&data).unwrap();
    // 300 documents; the 189 whose i % 100 < 63 lack `region`, none has `ghost`.
    let mut lacking = 0;
    for i in 0..300u32 {
        if i % 100 < 63 {
            lacking += 1;
            writeln!(f, r#"{{"_id": {i}, "user": {}}}"#, i % 17).unwrap();
        } else {
            writeln!(
                f,
                r#"{{"_id": {i}, "user": {}, "region": "r{}"}}"#,
                i % 17,
                i % 3
            )
            .unwrap();
        }
    }
    drop(f);
    let share = f64::from(lacking) * 100.0 / 300.0;
    let o = run(&[
        "--data",
        data.to_str().unwrap(),
        "--key",
        r#"{"region": 1, "user": 1}"#,
        "--key",
        r#"{"user": 1}"#,
        "--text",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let expected = format!("missing: {share}% of documents lack region (routed as null)");
    assert!(text.contains(&expected), "{expected}\n{text}");
    // Every percentage printed has at most two decimals.
    for word in text.split(|c: char| c.is_whitespace() || c == '(' || c == ',') {
        if let Some(n) = word.strip_suffix('%') {
            let decimals = n.split_once('.').map_or(0, |(_, d)| d.len());
            assert!(decimals <= 2, "{word} in\n{text}");
        }
    }
    refused(
        &[
            "--data",
            data.to_str().unwrap(),
            "--key",
            r#"{"ghost": 1}"#,
            "--key",
            r#"{"user": 1}"#,
            "--text",
        ],
        "--key {ghost: 1}: no document has the field ghost",
    );
}

#[test]
fn a_unique_index_the_data_contradicts_is_named_with_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.jsonl");
    let mut f = std::fs::File::create(&data).unwrap();
    // `code` is i for every document but 41, 77 and 90, which repeat 7.
    let codes: Vec<u32> = (0..100u32)
        .map(|i| if [41, 77, 90].contains(&i) { 7 } else { i })
        .collect();
    for (i, c) in codes.iter().enumerate() {
        writeln!(f, r#"{{"_id": {i}, "code": {c}, "g": {}}}"#, i % 5).unwrap();
    }
    drop(f);
    let sevens = codes.iter().filter(|c| **c == 7).count();
    let o = run(&[
        "--data",
        data.to_str().unwrap(),
        "--unique",
        r#"{"code": 1}"#,
        "--key",
        r#"{"code": 1}"#,
        "--key",
        r#"{"g": 1}"#,
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        json["uniqueIndexesContradicted"][0],
        serde_json::json!({"key": {"code": 1}, "value": {"code": 7}, "count": sevens})
    );
    let code = &json["candidates"][0];
    assert_eq!(code["keyCharacteristics"]["isUnique"], false);
    assert_eq!(
        code["keyCharacteristics"]["numDistinctValues"],
        100 - sevens + 1
    );
    assert_eq!(code["uniqueIndexContradicted"]["count"], sevens);
    let text = stdout(&run(&[
        "--data",
        data.to_str().unwrap(),
        "--unique",
        r#"{"code": 1}"#,
        "--key",
        r#"{"code": 1}"#,
        "--key",
        r#"{"g": 1}"#,
        "--text",
    ]));
    assert!(
        text.contains(&format!(
            "unique index {{code: 1}} could not exist on these documents: {{code: 7}} is in {sevens} of them"
        )),
        "{text}"
    );
}

#[test]
fn log_lines_it_cannot_read_are_counted_in_the_text_and_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mongod.log");
    let mut filter = String::from("1");
    for _ in 0..200 {
        filter = format!(r#"{{"$and":[{{"a":{filter}}}]}}"#);
    }
    let entry = |filter: &str| {
        format!(
            r#"{{"t":{{"$date":"2026-05-01T10:00:00.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query","attr":{{"type":"command","ns":"shop.orders","command":{{"find":"orders","filter":{filter},"$db":"shop"}},"durationMillis":120}}}}"#
        )
    };
    std::fs::write(
        &log,
        format!("{}\n{}\n", entry(r#"{"customerId":4242}"#), entry(&filter)),
    )
    .unwrap();
    let l = log.display().to_string();
    // A small data file of one's own: what is tested is the log's reading, not the layout.
    let data = dir.path().join("events.json");
    write_events(&data, 600);
    let d = data.display().to_string();
    let keys = ["--key", r#"{"seq": 1}"#, "--key", r#"{"device": 1}"#];
    let args = [
        &["--data", &d, "--log", &l, "--ns", "shop.orders"][..],
        &keys,
    ]
    .concat();
    let o = run(&[&args[..], &["--json"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["logSkippedLines"]["count"], 1, "{json}");
    assert_eq!(json["logSkippedLines"]["first"]["line"], 2);
    let o = run(&[&args[..], &["--text"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with(&format!(
            "--log {l}: 1 slow-query line skipped, not counted in the traffic (the first, line 2: "
        )),
        "{}",
        stdout(&o)
    );
}
