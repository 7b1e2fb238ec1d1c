//! `shardtop`, `shardtop demo` and the interactive `shardtop replay`: the timeline of a scenario
//! or of a trace, played in the TUI through the terminal toolbox.
//!
//! May import the toolbox (`terminal`, `settings`, `scenario_file`) and the floors; never another
//! command module.

use super::Failure;
use super::scenario_file;
use super::settings::{Context, history_secs, speed_of};
use super::terminal::{require_terminal, run_tui};
use crate::cli::{DemoArgs, ReplayArgs};
use crate::source::Playback;
use crate::source::replay::ReplayTimeline;
use crate::source::sim::SimTimeline;
use crate::view::LogLine;

/// `shardtop demo [SCENARIO]` (and `shardtop` alone, which is `demo ascending`).
pub fn demo(args: &DemoArgs, ctx: &Context) -> Result<(), Failure> {
    // The scenario first: a wrong name is told as such (with the closest name), not as a
    // missing terminal with a headless command that would fail the same way.
    let (sc, label) = scenario_file::load(
        args.scenario.as_deref(),
        args.options.scenario_file.as_deref(),
    )?;
    let headless = match &args.options.scenario_file {
        Some(path) => format!("`shardtop sim --scenario-file {} --json`", path.display()),
        None => format!(
            "`shardtop sim {} --json`",
            args.scenario.as_deref().unwrap_or("ascending")
        ),
    };
    let version = super::server_version(args.options.server_version.as_deref(), &ctx.config)?;
    require_terminal(&headless)?;
    let playback = Playback {
        speed: speed_of(args.options.speed, ctx)?,
        paused: args.options.paused,
        start_ms: None,
    };
    let mut timeline = SimTimeline::new(&sc, args.options.seed.unwrap_or(sc.seed), version)
        .map_err(|e| Failure::input(format!("scenario {label}: {e}")))?;
    timeline.keep_past(history_secs(&ctx.config)?);
    let log = timeline.take_initial_log();
    run_tui(timeline, playback, log, &ctx.settings)
}

/// `shardtop replay FILE` without `--json`.
pub fn replay(args: &ReplayArgs, ctx: &Context) -> Result<(), Failure> {
    require_terminal(&format!("`shardtop replay {} --json`", args.file.display()))?;
    let mut timeline = ReplayTimeline::open(&args.file).map_err(|e| {
        if e.input {
            Failure::input(e.message)
        } else {
            Failure::runtime(e.message)
        }
    })?;
    timeline.keep_past(history_secs(&ctx.config)?);
    let start_ms = match args.at {
        Some(t) if !t.is_finite() || t < 0.0 => {
            return Err(Failure::input(
                "--at: give a trace time in seconds, 0 or more",
            ));
        }
        Some(t) => Some((t * 1000.0).round() as u64),
        None => None,
    };
    let playback = Playback {
        speed: speed_of(args.speed, ctx)?,
        paused: args.paused,
        start_ms,
    };
    let log = timeline
        .warnings()
        .iter()
        .map(|w| LogLine {
            at_ms: 0,
            kind: crate::view::LogKind::Error,
            text: format!("trace warning: {w}"),
            migration: None,
            detail: None,
        })
        .collect();
    run_tui(timeline, playback, log, &ctx.settings)
}
