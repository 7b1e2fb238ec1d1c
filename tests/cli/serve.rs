//! `shardtop serve` through the real binary: address checks, and a served scenario the driver
//! can read.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::Command;

use bson::doc;

fn shardtop(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_shardtop"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn a_non_loopback_address_needs_allow_remote() {
    let o = shardtop(&["serve", "--listen", "0.0.0.0:0"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("--allow-remote"), "{err}");
}

#[test]
fn bad_input_exits_2() {
    for args in [
        &["serve", "--listen", "nowhere"][..],
        &[
            "serve",
            "--server-version",
            "3.6",
            "--listen",
            "127.0.0.1:0",
        ],
        // 6.0 is simulated as from 6.0.3.
        &[
            "serve",
            "--server-version",
            "6.0.1",
            "--listen",
            "127.0.0.1:0",
        ],
        &["serve", "no-such-scenario", "--listen", "127.0.0.1:0"],
        &["serve", "--max-docs", "many", "--listen", "127.0.0.1:0"],
    ] {
        let o = shardtop(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn serves_a_scenario_to_the_driver() {
    let (mut child, addr) = common::tmux::serve_child(&[
        "hashed",
        "--listen",
        "127.0.0.1:0",
        "--paused",
        "--server-version",
        "6.0",
    ]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let chunks = rt.block_on(async {
        let uri = format!("mongodb://{addr}/?directConnection=true&serverSelectionTimeoutMS=5000");
        let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
        let reply = client
            .database("config")
            .run_command(doc! { "count": "chunks" })
            .await
            .unwrap();
        i64::from(reply.get_i32("n").unwrap())
    });
    child.kill().unwrap();
    child.wait().unwrap();
    // The hashed scenario before 7.2: 2 chunks per shard on 3 shards; and the chunks of
    // `config.system.sessions`, as on every cluster: before 7.0 the 1,024 the balancer pre-splits
    // it into (the real 6.0.3 `sh.status()`).
    assert_eq!(chunks, 6 + 1024);
}

/// A client that leaves with a reset (it closes with a reply unread, as a killed process does)
/// is not logged as an error: only a clean log of the commands remains.
#[test]
fn a_client_that_leaves_with_a_reset_is_not_logged() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("shardtop-cli-reset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("commands.jsonl");
    let (mut child, addr) = common::tmux::serve_child(&[
        "--listen",
        "127.0.0.1:0",
        "--log-commands",
        log.to_str().unwrap(),
    ]);
    for i in 0..3 {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        let ping = shardtop::wire::encode_msg(i + 1, 0, &doc! {"ping": 1, "$db": "admin"});
        s.write_all(&ping).unwrap();
        // The reply arrives and is never read: closing now sends a reset, not a FIN.
        std::thread::sleep(std::time::Duration::from_millis(200));
        drop(s);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.matches("\"ping\"").count(), 3, "{text}");
    assert!(
        !text.to_lowercase().contains("reset") && !text.contains("closed"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
