//! `shardtop replay FILE --json [--at T]` (the interactive replay is in `tui`).

use std::io::Write;

use super::{Failure, write_failed};
use crate::cli::ReplayArgs;
use crate::cluster::SummaryOptions;
use crate::trace::replay::Played;
use crate::trace::{ReadOptions, Replay, TraceError};

fn failure(e: TraceError) -> Failure {
    if e.input {
        Failure::input(e.message)
    } else {
        Failure::runtime(e.message)
    }
}

pub fn run(args: &ReplayArgs, out: &mut impl Write) -> Result<(), Failure> {
    let at_ms = match args.at {
        Some(t) if !t.is_finite() || t < 0.0 => {
            return Err(Failure::input(
                "--at: give a trace time in seconds, 0 or more",
            ));
        }
        Some(t) => Some((t * 1000.0).round() as u64),
        None => None,
    };
    let mut replay = Replay::open(&args.file, ReadOptions::default()).map_err(failure)?;
    for w in &replay.trace.warnings {
        eprintln!(
            "shardtop: warning: {}",
            crate::units::printable::printable(w)
        );
    }
    let end = replay.end_ms();
    let until = at_ms.unwrap_or(end);
    let mut views = super::time_views::TimeViews::new(args.heatmap.as_deref(), args.history)?;
    if views.wanted() {
        // Played from the start, a second at a time, so the writes and samples are all seen.
        replay.seek(0).map_err(failure)?;
        views.sample(replay.state());
        let mut t = 0;
        while t < until {
            t = (t + 1000).min(until);
            let mut events = Vec::new();
            replay
                .play_to_with(t, |_, p| {
                    if let Played::Event(e) = p {
                        events.push(e.clone());
                    }
                })
                .map_err(failure)?;
            views.observe(&events);
            views.sample(replay.state());
        }
    } else {
        replay.seek(until).map_err(failure)?;
    }
    let source = format!("replay:{}", args.file.display());
    let live_start = replay.trace.header.live_start_ms();
    let mut summary = replay.state().summary_json(&SummaryOptions {
        source,
        chunks: args.chunks,
        // A live recording has no write signal (`record` reads no heat), as `watch` without one.
        writes_unknown: live_start.is_some(),
    });
    if let Some(start) = live_start {
        // A live recording's time as `watch` gives it: wall-clock seconds since the epoch.
        summary["time"] = serde_json::json!((start + replay.time_ms()) as f64 / 1000.0);
    }
    views.add_to(&mut summary, replay.state(), until);
    crate::source::diagnose::of_point(crate::source::replay::fork_point_of(&replay))
        .shifted(live_start.unwrap_or(0))
        .attach(&mut summary, &replay.state().namespaces());
    // A live recording: the rules one round ahead of each poll, against what the cluster did.
    if let Some(mut over) = crate::source::conformance::OverTrace::of(&replay.trace) {
        summary["conformance"] = over.at(until).map_err(failure)?.to_json();
    }
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&summary).unwrap_or_default()
    );
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}
