//! Bytes as a trace file (uncompressed): written to a per-process scratch directory, opened with
//! `Replay::open` (the validating scan), then replayed event by event, seeked to every keyframe
//! (which decodes the later keyframes the scan skips) and to the end, and stepped back. Also the
//! `writes` and keyframe fast paths on every line. Nothing may panic.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use shardtop::trace::{self, Notable, ReadOptions, Replay};

/// Events stepped at most.
const MAX_STEPS: usize = 10_000;

fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = std::env::var_os("FUZZ_SCRATCH").map_or_else(
            || PathBuf::from("/tmp/fuzzer"),
            PathBuf::from,
        );
        let dir = base.join(format!("trace_lines.{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir.join("input.ndjson")
    })
}

fuzz_target!(|data: &[u8]| {
    for line in data.split(|b| *b == b'\n') {
        let _ = trace::fast::writes(line);
        let _ = trace::fast::keyframe::keyframe(line);
    }
    let path = scratch();
    std::fs::write(path, data).expect("scratch file written");
    let opts = ReadOptions {
        max_line_bytes: 1 << 20,
        max_total_bytes: 64 << 20,
    };
    let Ok(mut replay) = Replay::open(path, opts) else {
        return;
    };
    for _ in 0..MAX_STEPS {
        match replay.step_forward() {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    let keyframes: Vec<u64> = replay.trace.keyframes.iter().map(|k| k.t_ms).collect();
    for t in keyframes.iter().take(16) {
        if replay.seek(*t).is_err() {
            return;
        }
    }
    let end = replay.end_ms();
    if replay.seek(end).is_err() || replay.seek(0).is_err() {
        return;
    }
    let _ = replay.step_back();
    for kind in [None, Some(Notable::Migration), Some(Notable::Error), Some(Notable::Jumbo)] {
        let _ = replay.next_notable(kind);
        let _ = replay.prev_notable(kind);
    }
    let _ = replay.play_to(end / 2);
    let _ = replay.state().summary_text("fuzz");
});
