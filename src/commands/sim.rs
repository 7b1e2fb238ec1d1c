//! `shardtop scenarios` and `shardtop sim`.

use std::fmt::Write as _;
use std::io::Write;

use super::{Failure, write_failed};
use crate::cli::SimArgs;
use crate::cluster::SummaryOptions;
use crate::sim::{Scenario, Simulator, scenario};

/// `shardtop scenarios [--json]`.
pub fn scenarios(json: bool, out: &mut impl Write) -> Result<(), Failure> {
    let all = scenario::BUILT_IN
        .iter()
        .map(|(_, text)| {
            scenario::parse(text)
                .map_err(|e| Failure::runtime(format!("built-in scenario is broken: {e}")))
        })
        .collect::<Result<Vec<Scenario>, Failure>>()?;
    let text = if json {
        let list: Vec<serde_json::Value> = all
            .iter()
            .map(|s| serde_json::json!({"name": s.name, "description": s.description, "lesson": s.lesson}))
            .collect();
        format!(
            "{}\n",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        )
    } else {
        scenario_list(&all, output_width())
    };
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

/// The width to wrap a listing to: the terminal's when stdout is one, else `$COLUMNS` when set,
/// else none (a pipe gets one line per paragraph, for `grep`).
fn output_width() -> Option<usize> {
    use std::io::IsTerminal as _;
    if std::io::stdout().is_terminal()
        && let Ok((w, _)) = crossterm::terminal::size()
    {
        return Some(usize::from(w));
    }
    std::env::var("COLUMNS").ok()?.trim().parse().ok()
}

/// Each scenario as its name, then its lesson and its description in a column beside it, wrapped
/// at spaces to `width` when given (never narrower than 20 columns of text).
fn scenario_list(all: &[Scenario], width: Option<usize>) -> String {
    let names = all.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let column = width.map_or(usize::MAX, |w| w.saturating_sub(names + 2).max(20));
    let mut text = String::new();
    for s in all {
        let paragraphs = [s.lesson.as_deref().unwrap_or(""), s.description.as_str()];
        let mut first = true;
        for line in paragraphs
            .iter()
            .flat_map(|p| crate::units::wrap_words(p, column, usize::MAX))
        {
            let name = if first { s.name.as_str() } else { "" };
            first = false;
            let _ = writeln!(text, "{name:<names$}  {line}");
        }
    }
    text
}

/// `shardtop sim SCENARIO …`.
pub fn run(
    args: &SimArgs,
    config: &crate::config::Config,
    out: &mut impl Write,
) -> Result<(), Failure> {
    if let Some(record) = &args.record {
        let scenario_file = ("--scenario-file", args.scenario_file.as_deref());
        super::refuse_writing_an_input("--record", record, &[scenario_file])?;
    }
    let (sc, label) =
        super::scenario_file::load(args.scenario.as_deref(), args.scenario_file.as_deref())?;
    let version = super::server_version(args.server_version.as_deref(), config)?;
    let seed = args.seed.unwrap_or(sc.seed);
    let mut sim = Simulator::from_scenario(&sc, seed, version)
        .map_err(|e| Failure::input(format!("scenario {label}: {e}")))?;
    let until = args.until.unwrap_or(sc.until);
    if !until.is_finite() || until < 0.0 {
        return Err(Failure::input(
            "--until: give a virtual time in seconds, 0 or more",
        ));
    }
    let mut log = String::new();
    let mut views = super::time_views::TimeViews::new(args.heatmap.as_deref(), args.history)?;
    let step_ms = if views.samples() { 1000 } else { 10_000 };
    let on_events = |sim: &Simulator, events: &[crate::cluster::Event]| {
        views.observe(events);
        views.sample(&sim.cluster);
        if args.events {
            for e in events.iter().filter(|e| {
                !matches!(
                    e.kind,
                    crate::cluster::EventKind::Writes { .. }
                        | crate::cluster::EventKind::BalancerRoundStarted { .. }
                )
            }) {
                log.push_str(&sim.cluster.describe(e));
                log.push('\n');
            }
        }
    };
    let until_ms = (until * 1000.0) as u64;
    if let Some(path) = &args.record {
        super::check_output("--record", path, args.force)?;
        let header =
            crate::source::record::sim_header(&sim, &format!("sim:{}", sc.name), &sc.name, seed);
        let to = (path.as_path(), super::existing(args.force));
        crate::source::record::record_sim_to(&mut sim, until_ms, to, &header, on_events).map_err(
            |e| Failure::runtime(format!("cannot write the trace {}: {e}", path.display())),
        )?;
    } else {
        run_to(&mut sim, until_ms, step_ms, on_events);
    }
    out.write_all(log.as_bytes())
        .map_err(|e| write_failed(&e))?;
    let source = format!("sim:{}", sc.name);
    for e in sim.failed_actions() {
        eprintln!(
            "shardtop sim: scheduled action failed: {}",
            crate::units::printable::printable(&e.to_string())
        );
    }
    let text = if args.json {
        let mut summary = sim.cluster.summary_json(&SummaryOptions {
            source,
            chunks: args.chunks,
            writes_unknown: false,
        });
        views.add_to(&mut summary, &sim.cluster, sim.now_ms());
        crate::source::diagnose::of_point(crate::source::whatif::ForkPoint::of_simulator(&sim))
            .attach(&mut summary, &sim.cluster.namespaces());
        format!(
            "{}\n",
            serde_json::to_string_pretty(&summary).unwrap_or_default()
        )
    } else {
        sim.summary_text(&format!("shardtop sim {} (seed {seed})", sc.name))
    };
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

/// Runs to `until_ms` in steps of `step_ms`, handing events to `on_events` after each step.
fn run_to(
    sim: &mut Simulator,
    until_ms: u64,
    step_ms: u64,
    mut on_events: impl FnMut(&Simulator, &[crate::cluster::Event]),
) {
    let first = sim.take_events();
    on_events(sim, &first);
    while sim.now_ms() < until_ms {
        let step_end = (sim.now_ms() + step_ms).min(until_ms);
        sim.run_until(step_end);
        let events = sim.take_events();
        on_events(sim, &events);
        if sim.now_ms() + crate::sim::engine::TICK_MS > until_ms {
            break;
        }
    }
}
