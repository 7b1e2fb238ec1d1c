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
    // The hashed scenario before 7.2: 2 chunks per shard on 3 shards; and the one chunk of
    // `config.system.sessions`, as on every cluster.
    assert_eq!(chunks, 7);
}
