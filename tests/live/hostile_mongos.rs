//! A mongos that misbehaves, for tests (and `examples/hostile_mongos.rs`, to measure by hand):
//! it answers the handshake as a real 8.0 mongos does (`hello` / `isMaster` with
//! `msg: "isdbgrid"`, `buildInfo`) through `shardtop::wire`, then does one wrong thing per
//! [`Mode`] — a cursor that never ends, silence, a reply larger than any real mongos sends, or
//! slow replies.
//!
//! Owns: the sockets it opens. May not touch: the crate's state.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bson::{Document, doc};
use tokio::net::TcpListener;

/// A real mongos's `maxMessageSizeBytes` (mongo `src/mongo/rpc/message.h`, `MaxMessageSizeBytes
/// = 48 * 1000 * 1000`).
pub const REAL_MAX_MESSAGE: i32 = 48_000_000;

/// What the server does wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every `find`, `aggregate` and `listIndexes` opens a cursor that `getMore` never closes
    /// (its id is never 0), each batch full-size: [`BATCH_DOCS`] documents of about
    /// [`DOC_BYTES`] bytes (16 MB, a mongos's batch limit).
    EndlessCursor,
    /// The handshake (`hello`, `isMaster`, `buildInfo`) is answered, nothing else ever is.
    Silent,
    /// `hello` advertises `maxMessageSizeBytes` `advertised`, and every read is answered with one
    /// reply of more than 48,000,000 bytes.
    HugeReply { advertised: i32 },
    /// Every command after the handshake is answered after this many milliseconds (an empty
    /// `config` otherwise: no shard, no collection).
    Slow { ms: u64 },
}

/// Documents in each batch of an endless cursor.
pub const BATCH_DOCS: usize = 1_000;
/// About the size of each of them, in bytes.
pub const DOC_BYTES: usize = 16_000;

/// The server: where it listens, and how many `getMore`s it answered.
pub struct Hostile {
    pub uri: String,
    pub get_mores: Arc<AtomicU64>,
    /// Set, every command after the handshake goes unanswered from then on (whatever the mode).
    pub silenced: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Hostile {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts the server on a free port of 127.0.0.1 (or `port`, when not 0).
pub async fn start_on(mode: Mode, port: u16) -> Hostile {
    let listener = TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let get_mores = Arc::new(AtomicU64::new(0));
    let counted = get_mores.clone();
    let silenced = Arc::new(AtomicBool::new(false));
    let hush = silenced.clone();
    let task = crate::common::wire_loop::accept(listener, move |command| {
        let (counted, hush) = (counted.clone(), hush.clone());
        async move {
            let mode = if hush.load(Ordering::Relaxed) {
                Mode::Silent
            } else {
                mode
            };
            answer(mode, &command, &counted).await
        }
    });
    Hostile {
        uri: format!("mongodb://127.0.0.1:{port}/?directConnection=true"),
        get_mores,
        silenced,
        task,
    }
}

pub async fn start(mode: Mode) -> Hostile {
    start_on(mode, 0).await
}

/// hello / isMaster as an 8.0 mongos (`src/mongo/s/commands/cluster_hello_cmd.cpp`).
fn hello(name: &str, max_message: i32) -> Document {
    let mut d = doc! {
        "msg": "isdbgrid",
        "maxBsonObjectSize": 16_777_216,
        "maxMessageSizeBytes": max_message,
        "maxWriteBatchSize": 100_000,
        "localTime": bson::DateTime::now(),
        "logicalSessionTimeoutMinutes": 30,
        "connectionId": 1,
        "maxWireVersion": 25,
        "minWireVersion": 0,
        "helloOk": true,
        "ok": 1.0,
    };
    if name == "hello" {
        d.insert("isWritablePrimary", true);
    } else {
        d.insert("ismaster", true);
    }
    d
}

/// One document of an endless cursor: it reads as a `config.shards` entry (so the poll gets as
/// far as keeping it) and as any user document.
fn endless_doc(n: u64) -> Document {
    doc! {
        "_id": format!("shard{n}"),
        "host": format!("rs{n}/h{n}.example.net:27017"),
        "state": 1,
        "pad": "x".repeat(DOC_BYTES - 100),
    }
}

fn endless_batch(from: u64) -> Vec<Document> {
    (from..from + BATCH_DOCS as u64).map(endless_doc).collect()
}

fn ns_of(cmd: &Document, name: &str) -> String {
    let db = cmd.get_str("$db").unwrap_or("admin");
    match cmd.get_str(name) {
        Ok(coll) => format!("{db}.{coll}"),
        Err(_) => format!("{db}.$cmd.aggregate"),
    }
}

/// The reply to `cmd`, or `None` for silence.
async fn answer(mode: Mode, cmd: &Document, get_mores: &AtomicU64) -> Option<Document> {
    let name = cmd.keys().next().cloned().unwrap_or_default();
    let advertised = match mode {
        Mode::HugeReply { advertised } => advertised,
        _ => REAL_MAX_MESSAGE,
    };
    match name.as_str() {
        "hello" | "isMaster" | "ismaster" => return Some(hello(&name, advertised)),
        "buildInfo" | "buildinfo" => {
            return Some(doc! {"version": "8.0.4", "versionArray": [8, 0, 4, 0], "ok": 1.0});
        }
        "endSessions" | "killCursors" => return Some(doc! {"ok": 1.0}),
        _ => {}
    }
    match mode {
        Mode::Silent => None,
        Mode::Slow { ms } => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            let ns = ns_of(cmd, &name);
            Some(doc! {"cursor": {"id": 0_i64, "ns": ns, "firstBatch": []}, "ok": 1.0})
        }
        Mode::EndlessCursor => {
            let (key, ns, n) = if name == "getMore" {
                let coll = cmd.get_str("collection").unwrap_or("x");
                let db = cmd.get_str("$db").unwrap_or("admin");
                let n = get_mores.fetch_add(1, Ordering::Relaxed) + 1;
                ("nextBatch", format!("{db}.{coll}"), n)
            } else {
                ("firstBatch", ns_of(cmd, &name), 0)
            };
            let batch = endless_batch(n * BATCH_DOCS as u64);
            Some(doc! {"cursor": {"id": 77_i64, "ns": ns, key: batch}, "ok": 1.0})
        }
        Mode::HugeReply { .. } => {
            // Four documents of 12.5 MB: one reply of about 50,000,000 bytes.
            let big: Vec<Document> = (0..4)
                .map(|i| doc! {"_id": format!("shard{i}"), "host": "h:1", "pad": "y".repeat(12_500_000)})
                .collect();
            let ns = ns_of(cmd, &name);
            Some(doc! {"cursor": {"id": 0_i64, "ns": ns, "firstBatch": big}, "ok": 1.0})
        }
    }
}
