//! A mongos that misbehaves, on a port of 127.0.0.1, to measure `watch`, `record` and
//! `lab --from` against it by hand (the tests start the same server in process):
//!
//! ```console
//! $ cargo run --example hostile_mongos -- endless 27999 &
//! $ /usr/bin/time -v shardtop record 'mongodb://127.0.0.1:27999/?directConnection=true' -o t.jsonl
//! ```
//!
//! Modes: `endless` (a cursor that never ends), `silent` (the handshake, then nothing), `huge`
//! (`hello` advertises 200 MB, a 50 MB reply), `huge48` (`hello` says 48,000,000, a 50 MB reply),
//! `slow` (every read answered after 5 s).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test tool

#[allow(dead_code)] // the counters the tests read
#[path = "../tests/live/hostile_mongos.rs"]
mod hostile_mongos;

/// The tests' shared connection loop, at the path `hostile_mongos` names it by.
#[path = "../tests/common"]
mod common {
    pub mod wire_loop;
}

use hostile_mongos::Mode;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mode = match args.next().as_deref() {
        Some("endless") => Mode::EndlessCursor,
        Some("silent") => Mode::Silent,
        Some("huge") => Mode::HugeReply {
            advertised: 200_000_000,
        },
        Some("huge48") => Mode::HugeReply {
            advertised: hostile_mongos::REAL_MAX_MESSAGE,
        },
        Some("slow") => Mode::Slow { ms: 5_000 },
        _ => {
            eprintln!("usage: hostile_mongos endless|silent|huge|huge48|slow [PORT]");
            std::process::exit(2);
        }
    };
    let port = args.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let server = hostile_mongos::start_on(mode, port).await;
    println!("{}", server.uri);
    std::future::pending::<()>().await;
}
