//! Bytes as a capture file (plain, gzip or zstd, told by its first bytes): read with the bounded
//! reader; a capture it accepts is written again and must read back to the same bytes, then is
//! opened — the poller run over it, every read answered from it — and summarised. Nothing may
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::capture::file;

fuzz_target!(|data: &[u8]| {
    let Ok(capture) = file::from_bytes("input", data) else {
        return;
    };
    let mut written = Vec::new();
    file::to_writer(&capture, &mut written).expect("a capture read is written");
    let again = file::from_bytes("again", &written).expect("a capture written reads back");
    let mut rewritten = Vec::new();
    file::to_writer(&again, &mut rewritten).expect("written again");
    assert_eq!(written, rewritten, "the round trip changed the capture");
    if let Ok((polled, _missing)) = shardtop::live::one_poll::replay_blocking(capture) {
        let _ = polled.state.summary_text("fuzz");
    }
});
