//! Bytes as a compressed trace file (`input.ndjson.zst`; what the content says is what is read,
//! so zstd, gzip or plain): opened with `Replay::open`, which decompresses as it reads, line by
//! line, within a line bound and a total bound, then seeked to its end and back. Seeds: traces
//! compressed with zstd and gzip, and small decompression bombs. Nothing may panic, and no input
//! may be expanded past the total bound.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use shardtop::trace::{ReadOptions, Replay};

fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = std::env::var_os("FUZZ_SCRATCH").map_or_else(
            || PathBuf::from("/tmp/fuzzer"),
            PathBuf::from,
        );
        let dir = base.join(format!("trace_compressed.{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir.join("input.ndjson.zst")
    })
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(path, data).expect("scratch file written");
    let opts = ReadOptions {
        max_line_bytes: 1 << 20,
        max_total_bytes: 8 << 20,
    };
    let Ok(mut replay) = Replay::open(path, opts) else {
        return;
    };
    let end = replay.end_ms();
    if replay.seek(end).is_err() || replay.seek(0).is_err() {
        return;
    }
    let _ = replay.step_forward();
});
