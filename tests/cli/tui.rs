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

#[test]
fn the_bare_command_takes_the_demo_s_options_and_a_wrong_name_is_told_first() {
    // `shardtop --paused` is the demo, paused: accepted (it then needs a terminal, as the demo).
    let (code, err) = run(&["--paused", "--speed", "8", "--server-version", "8"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("not a terminal") && err.contains("shardtop sim ascending --json"),
        "{err}"
    );
    // The demo's options belong to the demo: not with another command.
    let (code, err) = run(&["--paused", "sim", "hashed"]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("not a terminal"), "{err}");
    // Without a terminal, a wrong scenario name is told as such, with the closest name, not a
    // headless command that would fail the same way.
    let (code, err) = run(&["demo", "nosuch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown scenario \"nosuch\""), "{err}");
    assert!(!err.contains("sim nosuch"), "{err}");
    let (_, err) = run(&["demo", "hased"]);
    assert!(err.contains("did you mean \"hashed\"?"), "{err}");
    // A bare major release line is its .0 line; an unknown one is still refused.
    let (code, err) = run(&["--server-version", "7"]);
    assert!(code == 2 && err.contains("not a terminal"), "{err}");
    let (code, err) = run(&["--server-version", "3"]);
    assert!(
        code == 2 && err.contains("unknown server version \"3\""),
        "{err}"
    );
}

#[test]
fn a_uri_without_its_scheme_is_refused_with_the_one_meant() {
    let out = std::env::temp_dir().join(format!("shardtop-scheme-{}.ndjson", std::process::id()));
    let out = out.to_str().unwrap();
    for args in [
        &["watch", "127.0.0.1:27117", "--once"][..],
        &["record", "127.0.0.1:27117", "-o", out][..],
    ] {
        let (code, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("did you mean mongodb://127.0.0.1:27117?"),
            "{args:?}: {err}"
        );
    }
    assert!(!std::path::Path::new(out).exists());
}
