//! Commands built from a fixed list of names, with the fuzzer's BSON documents as arguments, so
//! inputs reach the real handlers quickly. An input is a session on one fresh `serve` state:
//!
//!   byte 0: bit 0 runs a prelude (a sharded `test.c` on {x: 1} with a few documents, split at
//!           x: 0, and a hashed `test.h`); then up to 12 records
//!   [name selector: u8][target selector: u8][BSON document of arguments]
//!
//! The command's first field is the chosen name with a value of the kind the command takes (a
//! collection, a namespace, a shard, a database, a cursor id seen in an earlier reply, or 1),
//! unless the arguments carry that field themselves. Every command must be answered.
#![no_main]

use bson::{Bson, Document, doc};
use libfuzzer_sys::fuzz_target;
use shardtop::serve::fuzzing::Lab;

const MAX_COMMANDS: usize = 12;

#[derive(Clone, Copy)]
enum Arg {
    Coll,
    Ns,
    Shard,
    Db,
    One,
    Cursor,
    Explain,
    Host,
    Global,
}

const COMMANDS: &[(&str, Arg)] = &[
    ("find", Arg::Coll),
    ("insert", Arg::Coll),
    ("update", Arg::Coll),
    ("delete", Arg::Coll),
    ("aggregate", Arg::Coll),
    ("shardCollection", Arg::Ns),
    ("split", Arg::Ns),
    ("moveChunk", Arg::Ns),
    ("moveRange", Arg::Ns),
    ("mergeChunks", Arg::Ns),
    ("createIndexes", Arg::Coll),
    ("dropIndexes", Arg::Coll),
    ("getMore", Arg::Cursor),
    ("killCursors", Arg::Coll),
    ("count", Arg::Coll),
    ("distinct", Arg::Coll),
    ("findAndModify", Arg::Coll),
    ("updateZoneKeyRange", Arg::Ns),
    ("addShardToZone", Arg::Shard),
    ("removeShardFromZone", Arg::Shard),
    ("reshardCollection", Arg::Ns),
    ("refineCollectionShardKey", Arg::Ns),
    ("explain", Arg::Explain),
    ("listIndexes", Arg::Coll),
    ("listCollections", Arg::One),
    ("clearJumboFlag", Arg::Ns),
    ("configureCollectionBalancing", Arg::Ns),
    ("balancerCollectionStatus", Arg::Ns),
    ("removeShard", Arg::Shard),
    ("movePrimary", Arg::Db),
    ("moveCollection", Arg::Ns),
    ("unshardCollection", Arg::Ns),
    ("checkMetadataConsistency", Arg::One),
    ("enableSharding", Arg::Db),
    ("setParameter", Arg::One),
    ("getParameter", Arg::One),
    ("addShard", Arg::Host),
    ("abortReshardCollection", Arg::Ns),
    ("commitReshardCollection", Arg::Ns),
    ("setAllowMigrations", Arg::Ns),
    ("commitTransaction", Arg::One),
    ("abortTransaction", Arg::One),
    ("hello", Arg::One),
    ("serverStatus", Arg::One),
    ("listDatabases", Arg::One),
    ("balancerStart", Arg::One),
    ("balancerStop", Arg::One),
    ("balancerStatus", Arg::One),
    ("startShardDraining", Arg::Shard),
    ("stopShardDraining", Arg::Shard),
    ("commitShardRemoval", Arg::Shard),
    ("shardDrainingStatus", Arg::Shard),
    ("configureQueryAnalyzer", Arg::Ns),
    ("analyzeShardKey", Arg::Ns),
    ("getLog", Arg::Global),
    ("listShards", Arg::One),
];

/// Commands a server runs only against `admin`.
fn admin_only(arg: Arg, name: &str) -> bool {
    matches!(arg, Arg::Ns | Arg::Shard | Arg::Host | Arg::Global)
        || matches!(
            name,
            "enableSharding"
                | "movePrimary"
                | "setParameter"
                | "getParameter"
                | "commitTransaction"
                | "abortTransaction"
                | "listDatabases"
                | "balancerStart"
                | "balancerStop"
                | "balancerStatus"
                | "listShards"
        )
}

const COLLS: &[&str] = &["c", "h", "d", "system.sessions"];
const DBS: &[&str] = &["test", "config", "other"];
const SHARDS: &[&str] = &["shard0000", "shard0001", "shard0002", "shard0009"];

fn prelude(lab: &mut Lab) {
    let cmds = [
        doc! {"enableSharding": "test", "$db": "admin"},
        doc! {"shardCollection": "test.c", "key": {"x": 1}, "$db": "admin"},
        doc! {"shardCollection": "test.h", "key": {"h": "hashed"}, "$db": "admin"},
        doc! {"insert": "c", "documents": [
            {"_id": 1, "x": 1, "a": [1, 2, {"b": "s"}]},
            {"_id": 2, "x": -5, "a": {"b": 2.5}},
            {"_id": 3, "x": "s"},
            {"_id": 4},
        ], "$db": "test"},
        doc! {"insert": "h", "documents": [{"_id": 1, "h": 7}, {"_id": 2, "h": "k"}], "$db": "test"},
        doc! {"split": "test.c", "middle": {"x": 0}, "$db": "admin"},
    ];
    for c in &cmds {
        lab.answer(c);
    }
}

/// The id of a cursor an answer opened, if any.
fn cursor_id(reply: &Document) -> Option<i64> {
    match reply.get_document("cursor").ok()?.get("id")? {
        Bson::Int64(id) if *id != 0 => Some(*id),
        _ => None,
    }
}

fn build(sel: u8, target: u8, args: Document, cursor: i64) -> Document {
    let (name, arg) = COMMANDS[usize::from(sel) % COMMANDS.len()];
    let coll = COLLS[usize::from(target & 3)];
    let db = DBS[usize::from(target >> 2 & 3) % DBS.len()];
    let db = if coll == "system.sessions" { "config" } else { db };
    let shard = SHARDS[usize::from(target >> 4 & 3)];
    let value = match arg {
        Arg::Coll => Bson::from(coll),
        Arg::Ns => Bson::from(format!("{db}.{coll}")),
        Arg::Shard => Bson::from(shard),
        Arg::Db => Bson::from(db),
        Arg::One => Bson::Int32(1),
        Arg::Cursor => Bson::Int64(cursor),
        Arg::Explain => Bson::Document(doc! {"find": coll, "filter": {"x": 1}}),
        Arg::Host => Bson::from("shard0003/localhost:27021"),
        Arg::Global => Bson::from("global"),
    };
    let mut cmd = Document::new();
    cmd.insert(name, args.get(name).cloned().unwrap_or(value));
    if name == "killCursors" && !args.contains_key("cursors") {
        cmd.insert("cursors", vec![Bson::Int64(cursor)]);
    }
    if name == "getMore" && !args.contains_key("collection") {
        cmd.insert("collection", coll);
    }
    for (k, v) in args {
        if k != name {
            cmd.insert(k, v);
        }
    }
    if !cmd.contains_key("$db") {
        let db = if admin_only(arg, name) { "admin" } else { db };
        cmd.insert("$db", db);
    }
    cmd
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, mut rest)) = data.split_first() else {
        return;
    };
    let mut cmds = Vec::new();
    while cmds.len() < MAX_COMMANDS && rest.len() >= 7 {
        let (sel, target) = (rest[0], rest[1]);
        let body = &rest[2..];
        let len = i32::from_le_bytes([body[0], body[1], body[2], body[3]]);
        let Ok(len) = usize::try_from(len) else { break };
        if len < 5 || len > body.len() {
            break;
        }
        let Ok(args) = Document::from_reader(&body[..len]) else {
            break;
        };
        rest = &body[len..];
        cmds.push((sel, target, args));
    }
    if cmds.is_empty() {
        return;
    }
    let mut lab = Lab::new().expect("the empty cluster builds");
    if flags & 1 != 0 {
        prelude(&mut lab);
    }
    let mut cursor = 0_i64;
    for (sel, target, args) in cmds {
        let cmd = build(sel, target, args, cursor);
        let reply = lab.answer(&cmd);
        match Document::from_reader(reply.as_slice()) {
            Ok(r) => cursor = cursor_id(&r).unwrap_or(cursor),
            Err(e) => panic!("reply to {cmd} is not a BSON document: {e}"),
        }
    }
});
