//! `shardtop watch URI`: one poll printed (`--once [--json]`), or the TUI over a live source.
//! (`--check` is `watch_check`'s.)
//!
//! May import the toolbox (`terminal`, `settings`) and the floors; never another command module.

use std::io::Write;

mod record_progress;
use std::time::Duration;

use super::settings::{Context, duration, heat_of, history_secs, interval_of};
use super::terminal::driver_panic::block_on;
use super::terminal::{require_terminal, run_source_in, runtime};
use super::{Failure, write_failed};
use crate::cli::WatchArgs;
use crate::cluster::SummaryOptions;
use crate::config::Config;
use crate::live::client::{LiveClient, LiveError, hosts};
use crate::live::one_poll::{FIRST_POLL, waiting_text, within};
use crate::live::poller::{OnePoll, Poller, now_ms, poll_once};
use crate::source::heat_choice::{self, Choice};
use crate::source::live::HeatMode;
use crate::ui::Settings;

fn failure(e: LiveError) -> Failure {
    if e.input {
        Failure::input(e.message)
    } else {
        Failure::runtime(e.message)
    }
}

fn install(p: &mut Poller, heat: HeatMode) {
    match heat {
        HeatMode::ChangeStream => {
            p.change_heat = Some(crate::live::change_heat::ChangeHeat::default());
        }
        HeatMode::Sampled => {
            p.sampled_heat = Some(crate::live::sampled_heat::SampledHeat::default());
        }
        HeatMode::Off | HeatMode::Size => {}
    }
}

/// The first poll with the write signal: one asked for is read from the first poll on; `auto`
/// chooses over the collections of the first poll (`heat_choice`) and reads from the next one,
/// its reason the log's first line.
async fn first_poll(
    client: &LiveClient,
    asked: Option<HeatMode>,
) -> Result<(Poller, Vec<crate::view::LogLine>, Choice), LiveError> {
    let mut p = Poller::new(client.clone());
    if let Some(mode) = asked {
        install(&mut p, mode);
    }
    let mut log = p.poll(now_ms()).await?.log;
    let choice = heat_choice::resolve(asked, client, &p.state().namespaces()).await;
    if let Some(why) = &choice.why {
        install(&mut p, choice.mode);
        log.insert(0, heat_choice::log_line(p.state().now_ms, why));
    }
    Ok((p, log, choice))
}

pub fn run(args: &WatchArgs, ctx: &Context, out: &mut impl Write) -> Result<(), Failure> {
    let asked = heat_of(args.heat.clone(), &ctx.config)?;
    let interval = interval_of(args.interval.as_ref(), &ctx.config)?;
    if !args.once {
        let keep_secs = history_secs(&ctx.config)?;
        return interactive(args, (&ctx.settings, keep_secs), interval, asked);
    }
    let rt = runtime()?;
    let (polled, heat) = block_on(&rt, &hosts(&args.uri), async {
        if asked.is_none_or(|h| h == HeatMode::Size || h == HeatMode::Off) {
            let heat = asked.unwrap_or(HeatMode::Size);
            return Ok((poll_once(&args.uri, Duration::from_secs(10)).await?, heat));
        }
        let client = LiveClient::connect(&args.uri, Duration::from_secs(10)).await?;
        let first = first_poll(&client, asked);
        let (p, log, choice) = within(&client, FIRST_POLL, first).await?;
        let heat = choice.mode;
        let polled = OnePoll {
            changelog: Vec::new(),
            refused: p.refused().to_vec(),
            state: p.finish().await,
            log,
        };
        Ok::<_, LiveError>((polled, heat))
    })?
    .map_err(failure)?;
    for r in &polled.refused {
        eprintln!(
            "shardtop: warning: {} ({})",
            crate::units::printable::printable(&r.text),
            r.feeds.label()
        );
    }
    let source = hosts(&args.uri);
    let text = if args.json {
        let mut summary = polled.state.summary_json(&SummaryOptions {
            source,
            chunks: false,
            writes_unknown: heat != HeatMode::ChangeStream,
        });
        let one = crate::source::conformance::of_one_poll(&polled.state, &polled.refused);
        summary["conformance"] = one.to_json();
        crate::source::diagnose::of_poll(
            &polled,
            crate::sim::whatif::assumptions::ForkedFrom::Live,
        )
        .attach(&mut summary, &polled.state.namespaces());
        format!(
            "{}\n",
            serde_json::to_string_pretty(&summary).unwrap_or_default()
        )
    } else {
        polled.state.summary_text_at(
            &format!("shardtop watch {source}"),
            &crate::source::live::clock_text(polled.state.now_ms),
            heat != HeatMode::ChangeStream,
        )
    };
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

/// How long connecting (server selection) may take.
const CONNECT: Duration = Duration::from_secs(10);

/// Says at once on standard error (a terminal) that `label` is being connected to, and within
/// which time; returns whether it did (the line is cleared when the first poll ends).
fn connecting(label: &str) -> bool {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return false;
    }
    let label = crate::units::printable::printable(label);
    eprint!(
        "\rshardtop: connecting to {label}… (timeout {} s; the first poll within {} s)\x1b[K",
        CONNECT.as_secs(),
        FIRST_POLL.as_secs()
    );
    true
}

/// Clears the line [`connecting`] or [`telling`] left on standard error.
fn clear_line(said: bool) {
    if said {
        eprint!("\r\x1b[K");
    }
}

/// `work`, saying on standard error (a terminal) what it waits for once it has waited 2 s:
/// "waiting for mongodb://h:27017: find config.chunks, 12 s" — the screen is never blank.
/// `said`: a line is there already (from [`connecting`]), to clear at the end.
async fn telling<T>(
    client: &LiveClient,
    label: &str,
    work: impl Future<Output = T>,
    mut said: bool,
) -> T {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return work.await;
    }
    tokio::pin!(work);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            done = &mut work => {
                if said {
                    eprint!("\r\x1b[K");
                }
                return done;
            }
            _ = tick.tick() => {
                let waited = client.waiting_for().is_some_and(|(_, w)| w.as_secs() >= 2);
                if let (true, Some(w)) = (waited, waiting_text(client)) {
                    let said_now = crate::units::printable::printable(&format!("{label}: {w}"))
                        .into_owned();
                    eprint!("\rshardtop: waiting for {said_now}\x1b[K");
                    said = true;
                }
            }
        }
    }
}

/// The TUI over the cluster: the first poll happens before the terminal is taken, so a cluster
/// that cannot be read gives its message and exit 1 on a normal screen.
fn interactive(
    args: &WatchArgs,
    (settings, keep_secs): (&Settings, u64),
    interval: Duration,
    asked: Option<HeatMode>,
) -> Result<(), Failure> {
    require_terminal(&format!(
        "`shardtop watch {} --once --json`",
        hosts(&args.uri)
    ))?;
    let rt = runtime()?;
    let said = connecting(&hosts(&args.uri));
    let (poller, log, choice) = block_on(&rt, &hosts(&args.uri), async {
        let client = LiveClient::connect(&args.uri, CONNECT)
            .await
            .inspect_err(|_| clear_line(said))?;
        let first = within(&client, FIRST_POLL, first_poll(&client, asked));
        Box::pin(telling(&client, &hosts(&args.uri), first, said)).await
    })?
    .map_err(failure)?;
    let cluster = poller.state();
    let collection = args
        .ns
        .as_deref()
        .and_then(|ns| cluster.collection_index(ns))
        .or_else(|| {
            // A user's collection first: `config.system.sessions` is on every cluster.
            cluster
                .collections
                .iter()
                .position(|c| !c.ns.starts_with("config."))
        })
        .unwrap_or(0);
    if let Some(ns) = &args.ns
        && cluster.collection_index(ns).is_none()
    {
        return Err(Failure::input(format!(
            "--ns {ns}: no such sharded collection on {}",
            hosts(&args.uri)
        )));
    }
    let label = hosts(&args.uri);
    let start = move |to_ui: tokio::sync::mpsc::Sender<crate::source::SourceEvent>, controls| async move {
        let _ = to_ui
            .send(crate::source::SourceEvent::Log {
                reset: true,
                lines: log,
            })
            .await;
        let past = crate::source::past::Past::keeping(keep_secs);
        let args = (interval, choice, past);
        // Pinned on the heap: the loop's state (the poller, the fork) is over clippy's 16 KiB.
        Box::pin(crate::source::live::run_live(
            poller, label, args, to_ui, controls,
        ))
        .await
    };
    run_source_in(rt, start, 1.0, false, settings, move |app| {
        app.collection = collection;
    })
}

/// `shardtop record URI -o FILE [--duration D] [--interval D]`.
pub fn record(
    args: &crate::cli::RecordArgs,
    config: &Config,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let interval = interval_of(args.interval.as_ref(), config)?;
    let limit = args.duration.as_deref().map(duration).transpose()?;
    super::check_output("--output", &args.output, args.force)?;
    let rt = runtime()?;
    let said = connecting(&hosts(&args.uri));
    let mut meter = record_progress::Meter::new(said, limit);
    let recorded = block_on(&rt, &hosts(&args.uri), async {
        let client = LiveClient::connect(&args.uri, CONNECT)
            .await
            .inspect_err(|_| clear_line(said))?;
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        crate::live::record::record_to(
            Poller::new(client),
            &args.uri,
            (&args.output, super::existing(args.force)),
            (interval, limit),
            stop,
            |p| meter.show(&p),
        )
        .await
    })
    .inspect_err(|_| clear_line(meter.on_screen()))?
    .inspect_err(|_| clear_line(meter.on_screen()))
    .map_err(failure)?;
    clear_line(meter.on_screen());
    let text = format!(
        "recorded {} polls over {:.1} s of {} into {} ({} polls failed)\n",
        recorded.polls,
        recorded.duration_ms as f64 / 1000.0,
        hosts(&args.uri),
        recorded.path.display(),
        recorded.failed_polls
    );
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}
