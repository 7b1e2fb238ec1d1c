//! Bytes as a capture file (plain, gzip or zstd, told by its first bytes): read with the bounded
//! reader, and read again as `open` reads it (each cursor's documents packed, through the fast
//! path) — both must accept the same bytes, or refuse them with the same error. A capture
//! accepted is written again and must read back to the same bytes, then is opened both ways —
//! the poller run over it, every read answered from it — and both polls must summarise the same.
//! Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::capture::file;
use shardtop::capture::replay::Replay;
use shardtop::live::one_poll::replay_blocking;

fuzz_target!(|data: &[u8]| {
    let read = file::from_bytes("input", data);
    let packed = file::replay_from_reader("input", std::io::Cursor::new(data.to_vec()));
    let (capture, packed) = match (read, packed) {
        (Ok(c), Ok(p)) => (c, p),
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "the packed read refuses the bytes otherwise");
            return;
        }
        (read, packed) => panic!(
            "one read accepts what the other refuses: {:?} / {:?}",
            read.err(),
            packed.err()
        ),
    };
    let mut written = Vec::new();
    file::to_writer(&capture, &mut written).expect("a capture read is written");
    let again = file::from_bytes("again", &written).expect("a capture written reads back");
    let mut rewritten = Vec::new();
    file::to_writer(&again, &mut rewritten).expect("written again");
    assert_eq!(written, rewritten, "the round trip changed the capture");
    let summary = |r: Replay| {
        replay_blocking(r)
            .map(|(polled, missing)| (polled.state.summary_text("fuzz"), missing))
            .map_err(|e| e.message)
    };
    assert_eq!(
        summary(Replay::new(capture)),
        summary(packed),
        "the packed capture polls otherwise"
    );
});
