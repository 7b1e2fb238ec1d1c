//! Damaged traces are refused when they are opened, not in the middle of a session (issue 20): a
//! byte changed in a later keyframe; compression told by content, whatever the name says.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::path::PathBuf;

use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::trace::{ReadOptions, Replay};

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shardtop-damage-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The ascending scenario recorded plain to `path` (several keyframes).
fn record(path: &std::path::Path) {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let header = sim_header(&sim, "sim:ascending", "ascending", 1);
    record_sim(&mut sim, 600_000, path, &header, |_, _| {}).unwrap();
}

fn replay_json(path: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
        .args(["replay", "--json"])
        .arg(path)
        .output()
        .unwrap()
}

#[test]
fn a_changed_byte_in_a_later_keyframe_is_refused_at_open() {
    let d = dir("keyframe");
    let path = d.join("t.ndjson");
    record(&path);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let later = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"keyframe\""))
        .nth(1)
        .map(|(i, _)| i)
        .expect("a second keyframe");
    // One digit of a chunk's document count, still valid JSON.
    let line = lines[later];
    let at = line.find("\"docs\":").unwrap() + "\"docs\":".len();
    let digit = line.as_bytes()[at];
    let changed = if digit == b'9' { b'8' } else { digit + 1 };
    let mut bytes = line.as_bytes().to_vec();
    bytes[at] = changed;
    let mut damaged: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    damaged[later] = String::from_utf8(bytes).unwrap();
    std::fs::write(&path, damaged.join("\n") + "\n").unwrap();

    let Err(e) = Replay::open(&path, ReadOptions::default()) else {
        panic!("opened")
    };
    assert!(e.input, "{e}");
    assert!(
        e.message.contains(&format!(":{}:", later + 1)) && e.message.contains("damaged"),
        "{e}"
    );
    let out = replay_json(&path);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compression_is_told_by_content_and_a_wrong_name_is_said() {
    let d = dir("names");
    let plain = d.join("t.ndjson");
    record(&plain);
    // A plain trace named .zst reads, with a warning saying what it is.
    let named_zst = d.join("plain.ndjson.zst");
    std::fs::copy(&plain, &named_zst).unwrap();
    let replay = Replay::open(&named_zst, ReadOptions::default()).unwrap();
    assert!(
        replay
            .trace
            .warnings
            .iter()
            .any(|w| w.contains("the name says zstd-compressed but the file is not compressed")),
        "{:?}",
        replay.trace.warnings
    );
    // An empty file named .zst is an empty file, not a decompression error.
    let empty = d.join("empty.zst");
    std::fs::write(&empty, b"").unwrap();
    let Err(e) = Replay::open(&empty, ReadOptions::default()) else {
        panic!("opened")
    };
    assert!(e.message.contains("empty file"), "{e}");
    // Text that is not a trace, named .zst, says it is not JSON (not "not zstd").
    let text = d.join("notes.zst");
    std::fs::write(&text, b"hello\n").unwrap();
    let Err(e) = Replay::open(&text, ReadOptions::default()) else {
        panic!("opened")
    };
    assert!(e.message.contains("not a shardtop trace: not JSON"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

fn open_err(path: &std::path::Path, opts: ReadOptions) -> String {
    match Replay::open(path, opts) {
        Ok(_) => panic!("{} opened", path.display()),
        Err(e) => e.message,
    }
}

/// A compressed file that is not a trace is read as a stream, line by line, and refused at its
/// first bad line — never expanded whole (issue 36: 134 KB of zstd became 4 GB in `$TMPDIR`).
#[test]
fn a_compressed_file_that_is_not_a_trace_is_refused_without_expanding_it() {
    let d = dir("bomb");
    let zeros = std::io::repeat(0).take(256 << 20);
    let zst = d.join("bomb.ndjson.zst");
    let mut enc = zstd::Encoder::new(std::fs::File::create(&zst).unwrap(), 19).unwrap();
    std::io::copy(&mut { zeros }, &mut enc).unwrap();
    enc.finish().unwrap();
    assert!(std::fs::metadata(&zst).unwrap().len() < 100_000);
    let began = std::time::Instant::now();
    let msg = open_err(&zst, ReadOptions::default());
    assert!(
        msg.contains("bomb.ndjson.zst:1: not a shardtop trace: the first line is longer than"),
        "{msg}"
    );
    // 1 MiB read, not 256 MiB.
    assert!(began.elapsed() < std::time::Duration::from_secs(5));

    // A real header, then a line without end: refused at that line, at the line limit.
    let plain = d.join("plain.ndjson");
    record(&plain);
    let header = std::fs::read_to_string(&plain).unwrap();
    let header = header.lines().next().unwrap();
    let gz = d.join("long.ndjson.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::best(),
    );
    writeln!(enc, "{header}").unwrap();
    std::io::copy(&mut std::io::repeat(b'x').take(8 << 20), &mut enc).unwrap();
    enc.finish().unwrap();
    let opts = ReadOptions {
        max_line_bytes: 1 << 20,
        ..ReadOptions::default()
    };
    let msg = open_err(&gz, opts);
    assert!(
        msg.contains("long.ndjson.gz:2: line is longer than 1048576 bytes"),
        "{msg}"
    );

    // A whole trace past the total bound: refused naming the line it reached.
    let whole = d.join("whole.ndjson.zst");
    std::fs::write(
        &whole,
        zstd::encode_all(std::fs::read(&plain).unwrap().as_slice(), 3).unwrap(),
    )
    .unwrap();
    let opts = ReadOptions {
        max_total_bytes: 50_000,
        ..ReadOptions::default()
    };
    let msg = open_err(&whole, opts);
    assert!(
        msg.contains("decompresses to more than 50000 bytes, the most a trace is read to"),
        "{msg}"
    );
    assert!(msg.starts_with(&format!("{}:", whole.display())), "{msg}");
    // Within the bound it reads.
    assert!(Replay::open(&whole, ReadOptions::default()).is_ok());
    let _ = std::fs::remove_dir_all(&d);
}

/// `path` with its last keyframe (line `n`, 1-based) changed by `edit`; returns `n`.
fn with_last_keyframe(
    plain: &std::path::Path,
    out: &std::path::Path,
    edit: impl FnOnce(&mut serde_json::Value),
) -> usize {
    let text = std::fs::read_to_string(plain).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let i = lines
        .iter()
        .rposition(|l| l.contains("\"keyframe\""))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&lines[i]).unwrap();
    edit(&mut v);
    lines[i] = v.to_string();
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
    i + 1
}

/// Keyframes no cluster can be are refused naming the line and the field (issue 36).
#[test]
fn impossible_keyframes_are_refused_naming_line_and_field() {
    let d = dir("impossible");
    let plain = d.join("plain.ndjson");
    record(&plain);
    let bad = d.join("bad.ndjson");
    let check = |edit: &dyn Fn(&mut serde_json::Value), want: &str| {
        let n = with_last_keyframe(&plain, &bad, |v| edit(v));
        let msg = open_err(&bad, ReadOptions::default());
        assert!(
            msg.starts_with(&format!("{}:{n}: ", bad.display())) && msg.contains(want),
            "want {want:?} at line {n}: {msg}"
        );
    };
    check(
        &|v| {
            let s = v["keyframe"]["shards"][0].clone();
            v["keyframe"]["shards"].as_array_mut().unwrap().push(s);
        },
        "is listed twice (also keyframe.shards[0])",
    );
    check(
        &|v| {
            let c = v["keyframe"]["collections"][0].clone();
            v["keyframe"]["collections"].as_array_mut().unwrap().push(c);
        },
        "is listed twice (also keyframe.collections[0])",
    );
    check(
        &|v| {
            let chunks = v["keyframe"]["collections"][0]["chunks"]
                .as_array_mut()
                .unwrap();
            assert!(chunks.len() > 1);
            chunks.remove(0);
        },
        "field `keyframe.collections[0].chunks[0].min`: the first chunk starts at { _id: ",
    );
    check(
        &|v| {
            let chunks = v["keyframe"]["collections"][0]["chunks"]
                .as_array_mut()
                .unwrap();
            chunks.swap(1, 2);
        },
        "field `keyframe.collections[0].chunks[2].min`: { _id: ",
    );
    check(
        &|v| v["keyframe"]["collections"][0]["chunks"][0]["docs"] = u64::MAX.into(),
        "field `keyframe.collections[0].chunks[0].docs`: 18446744073709551615 is more than 2^53",
    );
    check(
        &|v| {
            for j in 0..2 {
                v["keyframe"]["collections"][0]["chunks"][j]["bytes"] = (1u64 << 53).into();
            }
        },
        "field `keyframe.collections[0].chunks[1].bytes`: the collection's bytes add up to more than 2^53",
    );
    check(
        &|v| v["t"] = 0.5.into(),
        "field `t`: 0.5 s is before the previous keyframe's",
    );
    let _ = std::fs::remove_dir_all(&d);
}
