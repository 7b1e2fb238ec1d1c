//! Bytes as commands: up to 8 BSON documents back to back, each answered in turn by one fresh
//! `serve` state (the empty three-shard cluster of `shardtop serve`), so an input is a session
//! and a crash reproduces from its input alone. A command without `$db` gets "admin" or "test"
//! (chosen by the first byte). Every command must be answered, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::serve::fuzzing::Lab;

const MAX_COMMANDS: usize = 8;

fuzz_target!(|data: &[u8]| {
    let Some(&first) = data.first() else {
        return;
    };
    let mut rest = data;
    let mut cmds = Vec::new();
    while cmds.len() < MAX_COMMANDS && rest.len() >= 5 {
        let len = i32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
        let Ok(len) = usize::try_from(len) else { break };
        if len < 5 || len > rest.len() {
            break;
        }
        let Ok(mut doc) = bson::Document::from_reader(&rest[..len]) else {
            break;
        };
        rest = &rest[len..];
        if !doc.contains_key("$db") {
            let db = if first & 1 == 0 { "admin" } else { "test" };
            doc.insert("$db", db);
        }
        cmds.push(doc);
    }
    if cmds.is_empty() {
        return;
    }
    let mut lab = Lab::new().expect("the empty cluster builds");
    for cmd in &cmds {
        let reply = lab.answer(cmd);
        // The reply must be one well-formed BSON document.
        if let Err(e) = bson::Document::from_reader(reply.as_slice()) {
            panic!("reply to {cmd} is not a BSON document: {e}");
        }
    }
});
