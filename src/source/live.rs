//! A live cluster as a source: polls through the read-only poller every interval, keeps the last
//! state on screen when a poll fails ("disconnected since …, retrying" with backoff), and answers
//! view requests from the last state without touching the cluster — the explain panel and the
//! conformance of the polls so far included (`explain`, `conformance`: the simulator's rules over
//! the polled state, no further reads). Time is wall-clock; a live cluster cannot be stepped or
//! seeked, and pausing stops the polling.

use std::time::Duration;

use tokio::sync::mpsc;

use super::whatif::calibrate::LiveGrowth;
use super::whatif::forking::{Forking, arrived_on_own_clock};
use super::whatif::{FRAME, ForkPoint, OwnClock};
use super::{SourceControl, SourceEvent};
use crate::live::one_poll::{later_poll, waiting_text};
use crate::live::poller::{Poller, now_ms};
use crate::view::{self, ClockView, ViewRequest};

/// The write signal of a live source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeatMode {
    Off,
    /// Each shard's share of the growth between polls.
    Size,
    /// Change streams on the watched collections (opt-in), mapped to chunks.
    ChangeStream,
    /// Queries the cluster already samples (`$listSampledQueries`), targeted to chunks.
    Sampled,
}

impl HeatMode {
    pub fn label(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Size => "size",
            Self::ChangeStream => "changestream",
            Self::Sampled => "sampled",
        }
    }
}

/// A poll that has waited this long says on screen what it waits for.
const WAIT_SAID_AFTER: Duration = Duration::from_secs(2);

/// What the UI has asked of the source.
#[derive(Default)]
struct Asked {
    request: ViewRequest,
    paused: bool,
    /// The what-if fork's speed (the cluster's own clock has none).
    speed: f64,
    /// A what-if fork asked for and not yet made or dropped.
    whatif: Option<WhatIfAsk>,
}

/// The what-if mode's ask: a fork with these changes, or none.
enum WhatIfAsk {
    Make(String),
    Drop,
}

/// Applies a control from the UI; the notice to show, if any.
fn control(c: SourceControl, asked: &mut Asked) -> Option<&'static str> {
    match c {
        SourceControl::View(r) => asked.request = r,
        SourceControl::SetPaused(p) => asked.paused = p,
        SourceControl::SetSpeed(s) => asked.speed = s,
        SourceControl::WhatIf(w) => asked.whatif = Some(w.map_or(WhatIfAsk::Drop, WhatIfAsk::Make)),
        SourceControl::Step(_)
        | SourceControl::SeekBy(_)
        | SourceControl::Migration { .. }
        | SourceControl::Restart => {
            return Some(
                "a live cluster cannot be stepped or seeked (record it, then replay the trace)",
            );
        }
    }
    None
}

/// One poll; the UI's controls are taken while it waits (so the UI never waits on a full
/// channel), and a poll that waits says for what. `None`: the UI is gone.
async fn poll_taking_controls(
    poller: &mut Poller,
    interval: Duration,
    (out, ctl, label): (
        &mpsc::Sender<SourceEvent>,
        &mut mpsc::Receiver<SourceControl>,
        &str,
    ),
    asked: &mut Asked,
) -> Option<Result<Vec<crate::view::LogLine>, crate::live::client::LiveError>> {
    let started = tokio::time::Instant::now();
    let client = poller.client.clone();
    let mut said = false;
    let limit = later_poll(interval);
    let poll = async { poller.poll_within(now_ms(), limit).await.map(|p| p.log) };
    tokio::pin!(poll);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let result = loop {
        tokio::select! {
            polled = &mut poll => break polled,
            c = ctl.recv() => {
                let n = control(c?, asked);
                if let Some(n) = n {
                    out.send(SourceEvent::Notice(n.into())).await.ok()?;
                }
            }
            _ = tick.tick() => {
                let Some(w) = waiting_text(&client) else { continue };
                if started.elapsed() < WAIT_SAID_AFTER {
                    continue;
                }
                said = true;
                let n = format!("waiting for {label}: {w}");
                out.send(SourceEvent::Notice(n)).await.ok()?;
            }
        }
    };
    if said && result.is_ok() {
        let n = format!("{label} answered after {} s", started.elapsed().as_secs());
        out.send(SourceEvent::Notice(n)).await.ok()?;
    }
    Some(result)
}

/// The longest wait between two attempts after failures.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Wall-clock milliseconds since the epoch as `HH:MM:SS UTC`.
pub fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{:02}:{:02}:{:02} UTC",
        (s / 3600) % 24,
        (s / 60) % 60,
        s % 60
    )
}

/// What the last poll of `poller` could not read, for the balancer's rules.
fn unread(poller: &Poller) -> crate::sim::balancer::explain::Unread {
    let panes = poller.refused().iter().map(|r| r.feeds.as_str());
    super::explain::unread_of(true, poller.state(), panes)
}

/// `poller`'s last poll, compared with the polls before (conformance).
fn observe(conformance: &mut super::conformance::Tracker, poller: &Poller) {
    let unread = super::conformance::unread_of_refused(poller.state(), poller.refused());
    conformance.observe(poller.state(), unread);
}

/// The what-if fork made, and the fork being made.
type TheFork<'a> = (&'a mut Option<Box<OwnClock>>, Option<&'a Forking>);

/// The view of the last poll for what the UI asked, the fork beside it when there is one: the
/// conformance so far, and the explain panel when it is asked for (the rules over the polled
/// state, what the poll could not read unknown).
fn live_view(
    (poller, label, asked, (fork, forking)): (&Poller, &str, &Asked, TheFork<'_>),
    ((heat_mode, auto), heat, past, down_since): (
        (HeatMode, bool),
        Option<&super::heat::SizeHeat>,
        &super::past::Past,
        Option<u64>,
    ),
    (conformance, diagnoses): (
        &super::conformance::Tracker,
        Option<&crate::diagnosis::Diagnoses>,
    ),
) -> view::ClusterView {
    let state = poller.state();
    let clock = ClockView {
        time_ms: state.now_ms,
        paused: asked.paused,
        speed: fork.as_ref().map_or(1.0, |_| asked.speed),
        ..ClockView::default()
    };
    let request = &asked.request;
    let whatif = fork.as_mut().map(|f| {
        (f.paused, f.speed) = (asked.paused, asked.speed);
        Box::new(f.view(request, &clock))
    });
    let explain = |v: &view::ClusterView| {
        let sim = crate::sim::Simulator::over(state.clone());
        super::explain::panel(&sim, request, v, unread(poller), diagnoses)
    };
    let shares = |ns: &str, rows: &mut [view::ShardRow]| {
        if let Some(h) = heat {
            h.fill(ns, rows);
        }
    };
    // Without a per-chunk signal the key visualizer says so (a heatmap would be empty).
    let per_chunk = matches!(heat_mode, HeatMode::ChangeStream | HeatMode::Sampled);
    let parts = view::frame::Parts {
        diagnoses,
        past: Some(past.parts(per_chunk)),
        explain: Some(Box::new(explain)),
        refused: poller.refused().to_vec(),
        heat: Some(heat_mode.label()),
        heat_auto: auto,
        shares: Some(&shares),
        conformance: Some(conformance.conformance()),
        // No hotspot is current while no poll answers.
        disconnected_since: down_since,
        whatif,
        ..view::frame::Parts::default()
    };
    let mut v = view::frame::frame(state, (request, label, clock), parts);
    v.forking = forking.map(Forking::progress);
    v
}

/// Runs until the UI goes away, then ends the driver's sessions (while the runtime still runs:
/// ended by the runtime's shutdown instead, the driver panics); the poller has polled once.
pub async fn run_live(
    mut poller: Poller,
    label: String,
    args: (Duration, super::heat_choice::Choice, super::past::Past),
    out: mpsc::Sender<SourceEvent>,
    ctl: mpsc::Receiver<SourceControl>,
) -> color_eyre::Result<()> {
    let ended = live_loop(&mut poller, label, args, out, ctl).await;
    poller.close(crate::live::client::CLOSE_WITHIN).await;
    ended
}

async fn live_loop(
    poller: &mut Poller,
    label: String,
    (interval, choice, mut past): (Duration, super::heat_choice::Choice, super::past::Past),
    out: mpsc::Sender<SourceEvent>,
    mut ctl: mpsc::Receiver<SourceControl>,
) -> color_eyre::Result<()> {
    let (heat_mode, heat_shown) = (choice.mode, (choice.mode, choice.why.is_some()));
    let mut asked = Asked {
        speed: 1.0,
        ..Asked::default()
    };
    // The what-if mode's fork, on a clock of its own (real time × its speed), and the fork asked
    // for while it is made on a thread of its own.
    let (mut fork, mut forking): (Option<Box<OwnClock>>, Option<Forking>) = (None, None);
    let mut wait = interval;
    let mut down_since: Option<u64> = None;
    let mut next_poll = tokio::time::Instant::now() + interval;
    let mut heat = (heat_mode == HeatMode::Size).then(super::heat::SizeHeat::default);
    if let Some(h) = heat.as_mut() {
        h.observe(poller.state());
    }
    past.sample(poller.state());
    let mut growth = LiveGrowth::default();
    growth.observe(poller.state());
    // Boxed: the future `watch` awaits stays small.
    let mut conformance = Box::new(super::conformance::Tracker::default());
    observe(&mut conformance, &*poller);
    // The diagnosis of each poll, on a thread of its own.
    let mut diagnoser = super::diagnose::Diagnoser::default();
    loop {
        diagnose_due(&mut diagnoser, (&*poller, &growth));
        let v = live_view(
            (&*poller, &label, &asked, (&mut fork, forking.as_ref())),
            (heat_shown, heat.as_ref(), &past, down_since),
            (&conformance, diagnoser.latest()),
        );
        if out.send(SourceEvent::View(Box::new(v))).await.is_err() {
            return Ok(());
        }
        let timer = tokio::time::sleep_until(next_poll);
        tokio::pin!(timer);
        tokio::select! {
            c = ctl.recv() => {
                let Some(c) = c else { return Ok(()) };
                if let Some(n) = control(c, &mut asked)
                    && out.send(SourceEvent::Notice(n.into())).await.is_err()
                {
                    return Ok(());
                }
            }
            () = diagnoser.arrival(), if diagnoser.running() => {}
            () = tokio::time::sleep(FRAME), if fork.is_some() || forking.is_some() => {
                if let Some(f) = fork.as_mut() {
                    f.tick();
                }
            }
            () = &mut timer, if !asked.paused => {
                let ui = (&out, &mut ctl, label.as_str());
                let polled = poll_taking_controls(&mut *poller, interval, ui, &mut asked).await;
                let Some(result) = polled else { return Ok(()) };
                match result {
                    Ok(log) => {
                        if let Some(h) = heat.as_mut() {
                            h.observe(poller.state());
                        }
                        let at = poller.state().now_ms;
                        for (ns, counted) in poller.take_counted() {
                            past.heat.writes(&ns, counted.into_iter().map(|(k, n)| (at, k, n)));
                        }
                        for (t, ns, min, max, from) in poller.take_committed() {
                            past.heat.moved(&ns, t, (min, max), from);
                        }
                        past.sample(poller.state());
                        growth.observe(poller.state());
                        observe(&mut conformance, &*poller);
                        wait = interval;
                        if down_since.take().is_some() {
                            let _ = out.send(SourceEvent::Notice("connected again".into())).await;
                        }
                        if !log.is_empty()
                            && out.send(SourceEvent::Log { reset: false, lines: log }).await.is_err()
                        {
                            return Ok(());
                        }
                    }
                    Err(e) => {
                        let since = *down_since.get_or_insert_with(now_ms);
                        wait = (wait * 2).min(MAX_BACKOFF);
                        let n = format!(
                            "disconnected since {}, retrying in {}s: {}",
                            clock_text(since),
                            wait.as_secs(),
                            e.message
                        );
                        if out.send(SourceEvent::Notice(n)).await.is_err() {
                            return Ok(());
                        }
                    }
                }
                next_poll = tokio::time::Instant::now() + wait;
            }
        }
        if let Some(n) = what_if(&mut asked, (&mut fork, &mut forking), (&*poller, &growth))
            && out.send(SourceEvent::Notice(n)).await.is_err()
        {
            return Ok(());
        }
    }
}

/// Takes the fork being made once it is; then starts making the fork asked for, of the latest
/// poll's cluster (as `shardtop whatif mongodb://…`), on a thread of its own, or drops the fork
/// and any fork being made; the notice when a fork cannot be made.
fn what_if(
    asked: &mut Asked,
    (fork, forking): (&mut Option<Box<OwnClock>>, &mut Option<Forking>),
    (poller, growth): (&Poller, &LiveGrowth),
) -> Option<String> {
    let made = arrived_on_own_clock(forking, fork, asked.paused);
    let Some(ask) = asked.whatif.take() else {
        return made;
    };
    (*fork, *forking) = (None, None);
    let WhatIfAsk::Make(text) = ask else {
        return None;
    };
    let point = live_point((poller, growth));
    match Forking::start(point, &text, asked.request.collection) {
        Ok(f) => {
            *forking = Some(f);
            None
        }
        Err(e) => Some(format!("what if: {e}")),
    }
}

/// Starts the diagnosis of the latest poll when one is due (a new poll, none running).
fn diagnose_due(diagnoser: &mut super::diagnose::Diagnoser, at: (&Poller, &LiveGrowth)) {
    if diagnoser.due(at.0.state().now_ms) {
        let point = live_point(at);
        diagnoser.start(Box::new(move || Some(point)));
    }
}

/// The latest poll's cluster as a fork (and a diagnosis) starts from it, calibrated from what
/// the session has seen: the migration entries its polls read, and its growth since a poll
/// about 5 minutes before.
fn live_point((poller, growth): (&Poller, &LiveGrowth)) -> ForkPoint {
    let state = poller.state();
    ForkPoint {
        sim: crate::sim::Simulator::over(state.clone()),
        from: crate::sim::whatif::assumptions::ForkedFrom::Live,
        unread: unread(poller),
        calibration: super::whatif::calibrate::of_poll(
            poller.refused(),
            poller.logs.migration_entries(),
            growth.earlier(state.now_ms),
        ),
    }
}
