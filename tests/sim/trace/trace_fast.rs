//! The typed fast paths of the trace reader (`writes` and keyframe lines) read every line the way
//! the full JSON path does, and leave every line they cannot read exactly so to the full path.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::trace::{event_codec, fast, state_codec};

fn record(name: &str, until_ms: Option<u64>) -> Vec<String> {
    let sc = scenario::built_in(name).unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let path = scratch(name);
    let header = sim_header(&sim, &format!("sim:{name}"), name, 1);
    let until = until_ms.unwrap_or((sc.until * 1000.0) as u64);
    record_sim(&mut sim, until, &path, &header, |_, _| {}).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    text.lines().map(String::from).collect()
}

/// A file of its own per call: tests of one process record the same scenario at once.
fn scratch(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "shardtop-trace-fast-{name}-{}-{n}.ndjson",
        std::process::id()
    ))
}

/// The full path's reading of a keyframe line, as its encoding (or its error).
fn full_keyframe(line: &str) -> Result<serde_json::Value, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    v.get("keyframe").ok_or("not a keyframe")?;
    state_codec::decode(&v).map(|s| state_codec::encode(&s))
}

fn fast_keyframe(line: &str) -> Option<serde_json::Value> {
    fast::keyframe::keyframe(line.as_bytes()).map(|s| state_codec::encode(&s))
}

/// The full path's reading of a `writes` line (against the state `at`), as debug text.
fn full_writes(line: &str, at: &shardtop::cluster::Cluster) -> Result<String, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    if v.get("keyframe").is_some() || v.get("what").and_then(|w| w.as_str()) != Some("writes") {
        return Err("not a writes event".into());
    }
    let e = event_codec::decode(&v, at)?.ok_or("unknown event")?;
    Ok(format!("{e:?}"))
}

#[test]
fn every_scenario_reads_the_same_through_the_fast_paths() {
    let (mut keyframes, mut writes) = (0, 0);
    for name in scenario::names() {
        let mut state = None;
        for line in record(name, None) {
            if fast::keyframe::is_keyframe(line.as_bytes()) {
                let full = full_keyframe(&line).unwrap();
                assert_eq!(fast_keyframe(&line).as_ref(), Some(&full), "{name}");
                let v = serde_json::from_str(&line).unwrap();
                state = Some(state_codec::decode(&v).unwrap());
                keyframes += 1;
            } else if fast::is_writes(line.as_bytes()) {
                let full = full_writes(&line, state.as_ref().unwrap()).unwrap();
                let fast = fast::writes(line.as_bytes()).unwrap();
                assert_eq!(format!("{fast:?}"), full, "{name}: {line}");
                writes += 1;
            }
        }
    }
    assert!(keyframes > 100 && writes > 1000, "{keyframes} {writes}");
}

fn last_lines() -> (String, String) {
    let lines = record("hashed", Some(30_000));
    let keyframe = lines
        .iter()
        .rev()
        .find(|l| fast::keyframe::is_keyframe(l.as_bytes()))
        .unwrap()
        .clone();
    let writes = lines
        .iter()
        .rev()
        .find(|l| fast::is_writes(l.as_bytes()))
        .unwrap()
        .clone();
    (keyframe, writes)
}

/// A line changed at `at` (a fraction of its length): a cut, a repeated span, or a snippet put in.
fn damage(line: &str, at: f64, len: usize, how: usize) -> String {
    let bytes = line.as_bytes();
    let i = ((bytes.len() as f64 * at) as usize).min(bytes.len());
    let j = (i + len).min(bytes.len());
    let snippets: [&[u8]; 8] = [
        b"",
        b"1",
        b"\"shard0009\"",
        b"-",
        b"null",
        b"{\"u\":1,\"u\":2}",
        b",\"min\":{\"x\":1}",
        b"\"\\u0073hard0001\"",
    ];
    let mut out = bytes[..i].to_vec();
    match how % 3 {
        0 => out.extend_from_slice(&bytes[j..]),
        1 => {
            out.extend_from_slice(&bytes[i..j]);
            out.extend_from_slice(&bytes[i..]);
        }
        _ => {
            out.extend_from_slice(snippets[len % snippets.len()]);
            out.extend_from_slice(&bytes[j..]);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_damaged_line_is_read_the_same_or_left_to_the_full_path(
        at in 0.0f64..1.0, len in 0usize..24, how in 0usize..3,
    ) {
        static LINES: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
        let (keyframe, writes) = LINES.get_or_init(last_lines);
        let state = state_codec::decode(&serde_json::from_str(keyframe).unwrap()).unwrap();
        let k = damage(keyframe, at, len, how);
        if let Some(fast) = fast_keyframe(&k) {
            prop_assert_eq!(Ok(fast), full_keyframe(&k), "{}", k);
        }
        let w = damage(writes, at, len, how);
        if fast::is_writes(w.as_bytes()) && let Ok(fast) = fast::writes(w.as_bytes()) {
            prop_assert_eq!(Ok(format!("{fast:?}")), full_writes(&w, &state), "{}", w);
        }
    }
}

#[test]
fn the_committed_fixtures_read_the_same_through_the_fast_paths() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let zst = std::fs::read(dir.join("ascending.ndjson.zst")).unwrap();
    let gz = std::fs::read(dir.join("low-cardinality.ndjson.gz")).unwrap();
    let mut text = String::from_utf8(zstd::decode_all(zst.as_slice()).unwrap()).unwrap();
    std::io::Read::read_to_string(
        &mut flate2::read::MultiGzDecoder::new(gz.as_slice()),
        &mut text,
    )
    .unwrap();
    let mut keyframes = 0;
    for line in text.lines() {
        if fast::keyframe::is_keyframe(line.as_bytes()) {
            let full = full_keyframe(line).unwrap();
            assert_eq!(fast_keyframe(line).as_ref(), Some(&full));
            keyframes += 1;
        }
    }
    assert!(keyframes > 10, "{keyframes}");
}

#[test]
fn unusual_forms_of_a_writes_line_read_as_the_full_path_reads_them() {
    let (keyframe, _) = last_lines();
    let state = state_codec::decode(&serde_json::from_str(&keyframe).unwrap()).unwrap();
    let line = |key: &str, docs: &str, t: &str| {
        format!(
            r#"{{"chunks":[{{"min":{{"u":{{"$minKey":1}}}},"docs":{docs},"bytes":2,"writes":1,"key":{key}}}],"ns":"db.c","t":{t},"what":"writes"}}"#
        )
    };
    let keys = [
        r#"{"u":{"$numberLong":"-12"}}"#,
        r#"{"u":{"$numberLong":"+12"}}"#,
        r#"{"u":{"$numberLong":"99999999999999999999"}}"#,
        r#"{"u":{"$numberInt":"7"}}"#,
        r#"{"u":0}"#,
        r#"{"u":-0}"#,
        r#"{"u":012}"#,
        r#"{"u":2147483648}"#,
        r#"{"u":-9223372036854775809}"#,
        r#"{"u":18446744073709551615}"#,
        r#"{"u":1.5}"#,
        r#"{"u":1e3}"#,
        r#"{"u":"a\"b"}"#,
        r#"{"u":"é"}"#,
        r#"{"u":true,"v":null}"#,
        r#"{"u":1,"u":2}"#,
        r#"{"u\u0031":1,"u1":2}"#,
        r#"{"u":{"$minKey":2}}"#,
        r#"{"u":{"$maxKey":1}}"#,
        r#"{"u":{"$oid":"0123456789abcdef01234567"}}"#,
        "{}",
        r#"{ "u": 1 }"#,
    ];
    for key in keys {
        for (docs, t) in [
            ("3", "0.2"),
            ("03", "1"),
            ("-1", "1e2"),
            ("18446744073709551616", "-1"),
        ] {
            let text = line(key, docs, t);
            // A line the fast path refuses is read by the full path.
            if let Ok(e) = fast::writes(text.as_bytes()) {
                assert_eq!(Ok(format!("{e:?}")), full_writes(&text, &state), "{text}");
            }
        }
    }
}
