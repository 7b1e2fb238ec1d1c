//! Who may print and who may read the clock, checked on the source (comments left out).
//!
//! Printing: only the top (`main.rs`, `commands`) and the event loop that owns the terminal
//! (`runtime`) write to stdout or stderr. Why: stdout carries the TUI's frames and the JSON a
//! script reads; a floor that printed would corrupt both. `serve` hands its connection-level
//! lines to a sink its caller gives (`ServeOptions::lines`).
//!
//! The clock: the floors below `source` (model, cluster, sim, trace, diagnosis) and `view`,
//! `ui`, `lab`, `analyze`, `capture` never read it. Why: they are functions of their inputs, so a
//! replay, a snapshot and a test give the same answer every time; the simulator keeps its own
//! clock. The wall clock is read where time is measured: the top, the event loop, a live
//! cluster's polls, a source's playback, and `serve`'s layers that keep a deadline or an age
//! (`net`'s ticker and slots, `dispatch`'s command start, `query`'s `maxTimeMS` deadline,
//! `state`'s idle cursors, transactions and change events, `commands`' awaitData waits) — never
//! `catalog`, `write_path` or `reply`.

use super::{code_lines, sources};

fn relative(path: &std::path::Path) -> String {
    let src = super::src();
    path.strip_prefix(&src)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The files (relative to `src/`) whose code contains one of `needles`, outside `allowed`
/// prefixes.
fn offenders(needles: &[&str], allowed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for path in sources("") {
        let rel = relative(&path);
        if allowed.iter().any(|a| rel.starts_with(a)) {
            continue;
        }
        for (n, line) in code_lines(&path).iter().enumerate() {
            if let Some(needle) = needles.iter().find(|needle| line.contains(**needle)) {
                out.push(format!("src/{rel}:{}: {needle}", n + 1));
            }
        }
    }
    out
}

const PRINTING: &[&str] = &[
    "println!",
    "eprintln!",
    "print!(",
    "eprint!(",
    "io::stdout()",
    "io::stderr()",
];

const PRINTERS: &[&str] = &["main.rs", "commands", "runtime"];

const CLOCK: &[&str] = &["Instant::now", "SystemTime::now", "Utc::now", "Local::now"];

const CLOCK_READERS: &[&str] = &[
    "main.rs",
    "commands",
    "runtime",
    "live",
    "source",
    "serve/net",
    "serve/dispatch",
    "serve/query",
    "serve/state",
    "serve/commands",
];

#[test]
fn only_the_top_and_the_event_loop_print() {
    let found = offenders(PRINTING, PRINTERS);
    assert!(
        found.is_empty(),
        "printing outside commands and runtime:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_clock_is_read_only_where_time_is_measured() {
    let found = offenders(CLOCK, CLOCK_READERS);
    assert!(
        found.is_empty(),
        "the clock read outside its readers:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_effect_checks_find_what_they_look_for() {
    assert!(!offenders(PRINTING, &[]).is_empty());
    assert!(!offenders(CLOCK, &["commands", "runtime", "live", "source"]).is_empty());
}
