#![allow(clippy::unwrap_used)]
//! Keeps `demo.tape` (the VHS script of the README demo) honest: every `shardtop …` command it
//! types must still parse with the current CLI, and every scenario it names must exist.
//!
//! Each command is checked by running the real binary with the same arguments plus `--help`:
//! clap prints help and exits 0 when the subcommand, flags and flag values are valid, and exits 2
//! on an unknown subcommand or flag or a bad value. Clap does not know the scenario names, so
//! those are checked against `shardtop scenarios --json`. Nothing here opens the TUI.

use std::collections::BTreeSet;
use std::process::{Command, Output};

const TAPE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo.tape");

/// Subcommands whose first positional argument is a scenario name.
const SCENARIO_SUBCOMMANDS: &[&str] = &["demo", "sim"];

fn shardtop(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shardtop"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The string typed by a VHS `Type` command (`Type "…"`, `Type '…'`, `Type `…``, optionally
/// `Type@80ms "…"`), or None for any other line. Commands after the closing quote on the same
/// line (`Type "x" Sleep 1s Enter`) are ignored.
fn typed_string(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("Type")?;
    // `Type@<speed>`: skip the speed override up to the first whitespace
    let rest = match rest.strip_prefix('@') {
        Some(r) => r.trim_start_matches(|c: char| !c.is_whitespace()),
        None => rest,
    };
    if !rest.starts_with(char::is_whitespace) {
        return None; // e.g. a `Typewriter…` line, not a Type command
    }
    let rest = rest.trim_start();
    let quote = rest.chars().next()?;
    if !matches!(quote, '"' | '\'' | '`') {
        return None;
    }
    let body = &rest[quote.len_utf8()..];
    let end = body.find(quote);
    assert!(
        end.is_some(),
        "unterminated Type string in demo.tape: {line}"
    );
    Some(body[..end.unwrap()].to_string())
}

/// The arguments of every `shardtop …` command typed in the tape, in order, as
/// (tape line number, args after `shardtop`).
fn tape_commands() -> Vec<(usize, Vec<String>)> {
    let tape = std::fs::read_to_string(TAPE).unwrap();
    let mut commands = Vec::new();
    for (i, line) in tape.lines().enumerate() {
        let Some(typed) = typed_string(line) else {
            continue;
        };
        let mut words = typed.split_whitespace();
        if words.next() != Some("shardtop") {
            continue;
        }
        let args: Vec<String> = words.map(str::to_string).collect();
        // The args are split on whitespace, as the shell would for these plain commands: a
        // quoted or escaped argument, a pipe or a redirection would be checked wrongly.
        for a in &args {
            assert!(
                !a.contains(['"', '\'', '\\', '|', '>', '<', ';', '&', '$', '`']),
                "demo.tape line {}: keep `shardtop` commands to plain words, found {a:?} in {typed:?}",
                i + 1
            );
        }
        commands.push((i + 1, args));
    }
    commands
}

fn scenario_names() -> BTreeSet<String> {
    let o = shardtop(&["scenarios", "--json"]);
    assert!(
        o.status.success(),
        "shardtop scenarios --json failed: {}",
        text(&o.stderr)
    );
    let list: Vec<serde_json::Value> = serde_json::from_str(&text(&o.stdout)).unwrap();
    let names: BTreeSet<String> = list
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !names.is_empty(),
        "shardtop scenarios --json listed no scenario"
    );
    names
}

/// The long flags of `shardtop SUBCOMMAND` that take a value (`--speed <SPEED>` in its help).
fn flags_with_values(subcommand: &str) -> BTreeSet<String> {
    let o = shardtop(&[subcommand, "--help"]);
    assert!(
        o.status.success(),
        "shardtop {subcommand} --help: {}",
        text(&o.stderr)
    );
    let mut flags = BTreeSet::new();
    for line in text(&o.stdout).lines() {
        for (i, _) in line.match_indices("--") {
            let flag: String = line[i..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            let after = &line[i + flag.len()..];
            if flag.len() > 2
                && (after.starts_with(" <") || after.starts_with("=<") || after.starts_with(" [<"))
            {
                flags.insert(flag);
            }
        }
    }
    flags
}

/// The scenario named by `args` (`demo hashed --speed 8` → `hashed`), if the subcommand takes
/// one and it is given.
fn scenario_arg(args: &[String]) -> Option<String> {
    let subcommand = args.first()?;
    if !SCENARIO_SUBCOMMANDS.contains(&subcommand.as_str()) {
        return None;
    }
    let valued = flags_with_values(subcommand);
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        if a == "--" {
            return rest.next().cloned();
        }
        if a.starts_with('-') {
            if !a.contains('=') && valued.contains(a.as_str()) {
                rest.next(); // the flag's value
            }
            continue;
        }
        return Some(a.clone());
    }
    None
}

#[test]
fn demo_tape_types_at_least_one_shardtop_command() {
    let commands = tape_commands();
    assert!(
        !commands.is_empty(),
        "demo.tape has no `Type \"shardtop …\"` line: the demo records nothing of shardtop"
    );
}

#[test]
fn every_shardtop_command_in_demo_tape_parses_with_the_current_cli() {
    let commands = tape_commands();
    assert!(!commands.is_empty());
    for (line, args) in &commands {
        let mut with_help: Vec<&str> = args.iter().map(String::as_str).collect();
        with_help.push("--help");
        let o = shardtop(&with_help);
        assert_eq!(
            o.status.code(),
            Some(0),
            "demo.tape line {line}: `shardtop {}` is not valid for the current CLI \
             (`shardtop {}` exited {:?}):\n{}",
            args.join(" "),
            with_help.join(" "),
            o.status.code(),
            text(&o.stderr)
        );
        assert!(
            text(&o.stdout).contains("Usage:"),
            "demo.tape line {line}: `shardtop {}` printed no help:\n{}",
            with_help.join(" "),
            text(&o.stdout)
        );
    }
}

#[test]
fn every_scenario_named_in_demo_tape_exists() {
    let names = scenario_names();
    let commands = tape_commands();
    let mut checked = 0;
    for (line, args) in &commands {
        if let Some(scenario) = scenario_arg(args) {
            assert!(
                names.contains(&scenario),
                "demo.tape line {line}: `shardtop {}` names scenario {scenario:?}, \
                 which `shardtop scenarios` does not list (it has: {names:?})",
                args.join(" ")
            );
            checked += 1;
        }
    }
    assert!(
        checked > 0,
        "demo.tape names no scenario: expected `shardtop demo SCENARIO …` lines"
    );
}

#[test]
fn the_tape_parser_finds_typed_commands() {
    assert_eq!(
        typed_string(r#"Type "shardtop demo""#).as_deref(),
        Some("shardtop demo")
    );
    assert_eq!(
        typed_string(r#"  Type@80ms "q" Sleep 1s"#).as_deref(),
        Some("q")
    );
    assert_eq!(
        typed_string("Type 'shardtop sim'").as_deref(),
        Some("shardtop sim")
    );
    assert_eq!(typed_string("# Type \"shardtop demo\""), None);
    assert_eq!(typed_string("Sleep 1s"), None);
    assert_eq!(typed_string("Enter"), None);
    let args = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let valued = flags_with_values("demo");
    assert!(valued.contains("--speed"), "{valued:?}");
    assert!(!valued.contains("--paused"), "{valued:?}");
    assert_eq!(
        scenario_arg(&args("demo --speed 8 hashed")).as_deref(),
        Some("hashed")
    );
    assert_eq!(
        scenario_arg(&args("demo hashed --speed 8")).as_deref(),
        Some("hashed")
    );
    assert_eq!(
        scenario_arg(&args("demo --paused random")).as_deref(),
        Some("random")
    );
    assert_eq!(scenario_arg(&args("demo --speed=8")), None);
    assert_eq!(scenario_arg(&args("hash 42")), None);
}
