//! Bytes as a whole wire message: `shardtop::wire::parse` must refuse or accept, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::wire;

fuzz_target!(|data: &[u8]| {
    if let Some(len) = data.get(..4) {
        let declared = i32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        if let Ok(n) = wire::check_length(declared) {
            assert!((wire::HEADER_LEN..=wire::MAX_MESSAGE_BYTES).contains(&n));
        }
    }
    // As given (the declared length rarely matches) ...
    let _ = wire::parse(data);
    // ... and with the declared length patched to the real one, so the body parsers are reached.
    if data.len() >= wire::HEADER_LEN && i32::try_from(data.len()).is_ok() {
        let mut fixed = data.to_vec();
        fixed[..4].copy_from_slice(&(data.len() as i32).to_le_bytes());
        if let Ok(req) = wire::parse(&fixed) {
            // What was accepted can be encoded again.
            let _ = wire::encode_msg(req.request_id, 0, &req.command);
        }
    }
});
