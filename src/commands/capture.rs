//! `shardtop capture URI -o FILE` (one read-only poll kept whole in a file) and `shardtop open
//! FILE [--json]` (the TUI over it, or the JSON summary `watch --once --json` prints).
//!
//! May import the toolbox (`terminal`, `settings`) and the floors; never another command module.

use std::io::Write;
use std::time::Duration;

use super::settings::Context;
use super::terminal::{require_terminal, run_source_in, runtime};
use super::{Failure, check_output, existing, write_failed};
use crate::cli::{CaptureArgs, OpenArgs};
use crate::cluster::SummaryOptions;
use crate::live::client::{LiveError, hosts};
use crate::live::one_poll::{capture_once, replay_once};

fn failure(e: LiveError) -> Failure {
    if e.input {
        Failure::input(e.message)
    } else {
        Failure::runtime(e.message)
    }
}

fn warn_refused(refused: &[crate::view::RefusedRead]) {
    for r in refused {
        eprintln!("shardtop: warning: {} ({})", r.text, r.feeds.label());
    }
}

/// `shardtop capture URI -o FILE [--force]`.
pub fn capture(args: &CaptureArgs, out: &mut impl Write) -> Result<(), Failure> {
    check_output("--output", &args.output, args.force)?;
    let rt = runtime()?;
    let (polled, capture) = rt
        .block_on(capture_once(&args.uri, Duration::from_secs(10)))
        .map_err(failure)?;
    warn_refused(&polled.refused);
    let path =
        crate::capture::file::write(&capture, &args.output, existing(args.force)).map_err(|e| {
            let text = format!("--output {}: {e}", args.output.display());
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Failure::input(text)
            } else {
                Failure::runtime(text)
            }
        })?;
    let refusals = capture
        .reads
        .iter()
        .filter(|r| matches!(r.outcome, crate::capture::Outcome::Error { .. }))
        .count();
    let text = format!(
        "captured {} reads of {} ({} refused) into {}\n",
        capture.reads.len(),
        hosts(&args.uri),
        refusals,
        path.display()
    );
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

/// `shardtop open FILE [--json] [--ns NS]`.
pub fn open(args: &OpenArgs, ctx: &Context, out: &mut impl Write) -> Result<(), Failure> {
    let file = args.file.display().to_string();
    if !args.json {
        require_terminal(&format!("`shardtop open {file} --json`"))?;
    }
    let capture = crate::capture::file::read(&args.file).map_err(|e| Failure::input(e.0))?;
    let rt = runtime()?;
    let (polled, _missing) = rt.block_on(replay_once(capture)).map_err(|e| {
        Failure::input(format!(
            "{file}: the capture cannot be opened: {}",
            e.message
        ))
    })?;
    warn_refused(&polled.refused);
    let source = format!("capture:{file}");
    if args.json {
        let mut summary = polled.state.summary_json(&SummaryOptions {
            source,
            chunks: false,
            writes_unknown: true,
        });
        let one = crate::source::conformance::of_one_poll(&polled.state, &polled.refused);
        summary["conformance"] = one.to_json();
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(&summary).unwrap_or_default()
        );
        return out.write_all(text.as_bytes()).map_err(|e| write_failed(&e));
    }
    let cluster = &polled.state;
    let collection = match &args.ns {
        Some(ns) => cluster.collection_index(ns).ok_or_else(|| {
            Failure::input(format!("--ns {ns}: no such sharded collection in {file}"))
        })?,
        // A user's collection first: `config.system.sessions` is on every cluster.
        None => (cluster.collections.iter())
            .position(|c| !c.ns.starts_with("config."))
            .unwrap_or(0),
    };
    let start =
        move |to_ui, controls| crate::source::capture::run_still(polled, source, to_ui, controls);
    run_source_in(&rt, start, 1.0, true, &ctx.settings, move |app| {
        app.collection = collection;
    })
}
