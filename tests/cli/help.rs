#![allow(clippy::unwrap_used)]
//! `shardtop completions SHELL`, `shardtop man` and `shardtop config --print-template` as the
//! binary prints them: every subcommand in every shell's script, a manual page `man` renders
//! (man is required: CI installs it), a template that configures the binary as the defaults do.

use std::io::Write;
use std::process::{Command, Stdio};

use clap::CommandFactory;

const BIN: &str = env!("CARGO_BIN_EXE_shardtop");

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn subcommands() -> Vec<String> {
    shardtop::cli::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

#[test]
fn every_shell_s_completions_name_every_subcommand() {
    let names = subcommands();
    assert!(names.len() >= 10, "{names:?}");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (code, script, err) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for name in &names {
            assert!(script.contains(name.as_str()), "{shell} lacks {name}");
        }
        assert!(script.contains("theme"), "{shell} lacks the global flags");
    }
    let (code, _, err) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
}

#[test]
fn the_manual_page_renders_with_man() {
    let (code, page, _) = run(&["man"]);
    assert_eq!(code, 0);
    assert!(
        page.starts_with(".ie") || page.contains(".TH shardtop 1"),
        "{page}"
    );
    let man = Command::new("man")
        .args(["-l", "-"])
        .env("MANWIDTH", "100")
        .env("MAN_KEEP_FORMATTING", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut man = man.expect("man is required (CI installs man-db)");
    man.stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let out = man.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = overstrike_removed(&String::from_utf8_lossy(&out.stdout));
    for section in [
        "NAME",
        "SYNOPSIS",
        "OPTIONS",
        "SHARDTOP WATCH",
        "SHARDTOP SERVE",
    ] {
        assert!(text.contains(section), "man lacks {section}:\n{text}");
    }
    assert!(
        text.contains("--check"),
        "the subcommands' options are in it"
    );
}

/// man's bold and underline as a terminal gets them (`N\bN`, `_\bx`), as plain text.
fn overstrike_removed(text: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    for c in text.chars() {
        if c == '\u{8}' {
            out.pop();
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

#[test]
fn the_template_configures_the_binary_as_the_defaults_do() {
    let (code, template, _) = run(&["config", "--print-template"]);
    assert_eq!(code, 0);
    assert_eq!(template, shardtop::config::template());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, &template).unwrap();
    let p = path.display().to_string();
    let with = run(&["--config", &p, "sim", "ascending", "--json"]);
    let without = run(&["sim", "ascending", "--json"]);
    assert_eq!(with.0, 0, "{}", with.2);
    assert_eq!(with.1, without.1);
    let (code, _, err) = run(&["config"]);
    assert_eq!(
        code, 2,
        "config without --print-template is a usage error: {err}"
    );
}

#[test]
fn the_configuration_is_found_where_it_is_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shardtop")).unwrap();
    let file = dir.path().join("shardtop/config.toml");
    std::fs::write(&file, "server-version = \"4.4\"\n").unwrap();
    let out = Command::new(BIN)
        .args(["sim", "ascending", "--json", "--until", "1"])
        .env("XDG_CONFIG_HOME", dir.path())
        .env_remove("SHARDTOP_CONFIG")
        .output()
        .unwrap();
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(
        json.contains("\"serverVersion\": \"4.4\""),
        "XDG_CONFIG_HOME: {json}"
    );
    let out = Command::new(BIN)
        .args([
            "sim",
            "ascending",
            "--json",
            "--until",
            "1",
            "--server-version",
            "7.0",
        ])
        .env("XDG_CONFIG_HOME", dir.path())
        .output()
        .unwrap();
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(
        json.contains("\"serverVersion\": \"7.0\""),
        "the flag wins: {json}"
    );
    std::fs::write(&file, "server-version = \"3.6\"\n").unwrap();
    let out = Command::new(BIN)
        .args(["sim", "ascending", "--until", "1"])
        .env("SHARDTOP_CONFIG", &file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("config.toml, line 1, key `server-version`: "),
        "{err}"
    );
    let out = Command::new(BIN)
        .args(["sim", "ascending", "--until", "1"])
        .env("SHARDTOP_CONFIG", dir.path().join("missing.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a named file must exist");
}

#[test]
fn the_manual_page_has_its_sections_and_no_pages_that_do_not_exist() {
    let (code, page, err) = run(&["man"]);
    assert_eq!(code, 0, "{err}");
    for section in [
        ".SH KEYS",
        ".SH EXAMPLES",
        ".SH FILES",
        ".SH ENVIRONMENT",
        ".SH COMMANDS",
    ] {
        assert!(page.contains(section), "man lacks {section}");
    }
    assert!(!page.contains("shardtop\\-demo(1)") && !page.contains("shardtop-demo(1)"));
    // KEYS from the help's tables, with the default keys.
    assert!(page.contains("query targeting") && page.contains("SHARDTOP_CONFIG"));
}

#[test]
fn scenario_names_complete_and_global_options_have_their_heading() {
    let (code, script, _) = run(&["completions", "bash"]);
    assert_eq!(code, 0);
    for name in ["hot-customer", "zones-gdpr", "low-cardinality"] {
        assert!(script.contains(name), "bash completion lacks {name}");
    }
    let (_, script, _) = run(&["completions", "zsh"]);
    assert!(
        script.contains("hot-customer"),
        "zsh completion lacks the scenarios"
    );
    let (code, help, _) = run(&["sim", "--help"]);
    assert_eq!(code, 0);
    let global = help
        .find("Global options:")
        .expect("a heading for the global options");
    let own = help.find("Options:").expect("the command's own options");
    assert!(own < global, "{help}");
    assert!(
        help[global..].contains("--theme") && !help[..global].contains("--theme"),
        "{help}"
    );
    let (_, help, _) = run(&["--help"]);
    assert!(
        help.contains("Demo options:") && help.contains("--paused"),
        "{help}"
    );
}
