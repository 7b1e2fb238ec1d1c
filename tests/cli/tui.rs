#![allow(clippy::unwrap_used)]
//! The TUI commands without a terminal: exit 2 with a one-line hint naming the headless form.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_shardtop");

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_tui_commands_need_a_terminal_and_name_the_headless_form() {
    for (args, hint) in [
        (&[][..], "shardtop sim ascending --json"),
        (&["demo"][..], "shardtop sim ascending --json"),
        (&["demo", "hashed"][..], "shardtop sim hashed --json"),
        (
            &["replay", "tests/fixtures/traces/ascending.ndjson.zst"][..],
            "--json",
        ),
    ] {
        let (code, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("not a terminal") && err.contains(hint),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

#[test]
fn replay_json_still_prints_the_summary() {
    let out = Command::new(BIN)
        .args([
            "replay",
            "tests/fixtures/traces/ascending.ndjson.zst",
            "--json",
            "--at",
            "60",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["time"], 60.0);
}
