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
use crate::live::one_poll::{capture_once, replay_reads};

fn failure(e: LiveError) -> Failure {
    if e.input {
        Failure::input(e.message)
    } else {
        Failure::runtime(e.message)
    }
}

fn warn_refused(refused: &[crate::cluster::privileges::RefusedRead]) {
    for r in refused {
        eprintln!(
            "shardtop: warning: {} ({})",
            crate::units::printable::printable(&r.text),
            r.feeds.label()
        );
    }
}

/// `shardtop capture --script [--server-version V] [-o FILE]`: the mongosh script, printed or
/// written whole to the file.
fn script(args: &CaptureArgs, out: &mut impl Write) -> Result<(), Failure> {
    let version = args.server_version.as_deref();
    if let Some(v) = version {
        v.parse::<crate::cluster::ServerVersion>()
            .map_err(|e| Failure::input(format!("--server-version {v}: {e}")))?;
    }
    let text = crate::live::client::script::script(version);
    let Some(path) = &args.output else {
        return out.write_all(text.as_bytes()).map_err(|e| write_failed(&e));
    };
    check_output("--output", path, args.force)?;
    crate::files::write_whole(path, text.as_bytes(), existing(args.force))
        .map_err(|e| Failure::runtime(format!("--output {}: {e}", path.display())))?;
    Ok(())
}

/// `shardtop capture URI -o FILE [--force] [--anonymize]`, `shardtop capture CAPTURE -o FILE
/// --anonymize` (an existing capture written anonymized), or `--script`.
pub fn capture(args: &CaptureArgs, out: &mut impl Write) -> Result<(), Failure> {
    if args.script {
        return script(args, out);
    }
    let (Some(uri), Some(output)) = (&args.uri, &args.output) else {
        return Err(Failure::input(
            "capture needs a URI and --output FILE (or --script)".to_string(),
        ));
    };
    let from_file = std::path::Path::new(uri);
    super::refuse_writing_an_input("--output", output, &[("the input", Some(from_file))])?;
    check_output("--output", output, args.force)?;
    // Opened once: a FIFO or a pipe (`<(zcat c.capture.gz)`) cannot be read a second time.
    let opened =
        crate::capture::once::open_if_capture(from_file).map_err(|e| Failure::input(e.0))?;
    let (capture, source) = if let Some(opened) = opened {
        if !args.anonymize {
            return Err(Failure::input(format!(
                "{uri}: a capture file is written again only with --anonymize"
            )));
        }
        let capture = opened.read().map_err(|e| Failure::input(e.0))?;
        (capture, uri.clone())
    } else {
        let rt = runtime()?;
        let read = capture_once(uri, Duration::from_secs(10));
        let (polled, capture) =
            super::terminal::driver_panic::block_on(&rt, &hosts(uri), read)?.map_err(failure)?;
        warn_refused(&polled.refused);
        (capture, hosts(uri))
    };
    let capture = if args.anonymize {
        crate::capture::anonymize::anonymize(&capture)
    } else {
        capture
    };
    let path =
        crate::capture::file::write(&capture, output, existing(args.force)).map_err(|e| {
            let text = format!("--output {}: {e}", output.display());
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
        "captured {} reads of {} ({} refused){} into {}\n",
        capture.reads.len(),
        source,
        refusals,
        if args.anonymize { ", anonymized," } else { "" },
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
    let replay = crate::capture::file::read_replay(&args.file).map_err(|e| Failure::input(e.0))?;
    let rt = runtime()?;
    let (polled, _missing) = rt.block_on(replay_reads(replay)).map_err(|e| {
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
        crate::source::diagnose::of_poll(
            &polled,
            crate::sim::whatif::assumptions::ForkedFrom::Capture,
        )
        .attach(&mut summary, &polled.state.namespaces());
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
    run_source_in(rt, start, 1.0, true, &ctx.settings, move |app| {
        app.collection = collection;
    })
}
