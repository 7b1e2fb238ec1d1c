//! A capture opened (`shardtop open FILE`) as a source: the one state its poll made, still — no
//! clock runs and nothing is polled; the UI's view requests are answered from that state, and a
//! step or seek is answered with a notice.
//!
//! Owns: the still source's task. May not touch: the capture's file or its reads (`capture`,
//! `live`), the terminal.

use tokio::sync::mpsc;

use super::whatif::forking::{Forking, arrived_on_own_clock};
use super::whatif::{FRAME, OwnClock};
use super::{SourceControl, SourceEvent};
use crate::live::poller::OnePoll;
use crate::sim::Simulator;
use crate::sim::whatif::assumptions::ForkedFrom;
use crate::view::{self, ClockView, ViewRequest};

/// `capture taken 2026-12-03 14:43:38 UTC`.
pub fn taken_text(ms: u64) -> String {
    let at = bson::DateTime::from_millis(ms as i64)
        .try_to_rfc3339_string()
        .unwrap_or_default();
    let at = at.get(..19).unwrap_or(&at).replacen('T', " ", 1);
    format!("capture taken {at} UTC")
}

/// The capture's frame for `request`: its state, what its poll could not read, the explain
/// panel when asked for, the diagnosis, the fork beside it.
fn still_view(
    (state, refused, still): (
        &crate::cluster::Cluster,
        &[crate::cluster::privileges::RefusedRead],
        &str,
    ),
    (request, label, clock): (&ViewRequest, &str, ClockView),
    (diagnoses, whatif): (
        Option<&crate::diagnosis::Diagnoses>,
        Option<Box<crate::view::whatif::WhatIfView>>,
    ),
) -> view::ClusterView {
    let explain = |v: &view::ClusterView| {
        let panes = refused.iter().map(|r| r.feeds.as_str());
        let unread = super::explain::unread_of(true, state, panes);
        let sim = Simulator::over(state.clone());
        super::explain::panel(&sim, request, v, unread, diagnoses)
    };
    let parts = view::frame::Parts {
        diagnoses,
        explain: Some(Box::new(explain)),
        refused: refused.to_vec(),
        // One poll has no write signal: shares are unknown.
        heat: Some("off"),
        still: Some(still.to_string()),
        whatif,
        ..view::frame::Parts::default()
    };
    view::frame::frame(state, (request, label, clock), parts)
}

/// Runs until the UI goes away.
pub async fn run_still(
    polled: OnePoll,
    label: String,
    out: mpsc::Sender<SourceEvent>,
    mut ctl: mpsc::Receiver<SourceControl>,
) -> color_eyre::Result<()> {
    let lines = polled.log;
    if out
        .send(SourceEvent::Log { reset: true, lines })
        .await
        .is_err()
    {
        return Ok(());
    }
    let state = polled.state;
    let still = taken_text(state.now_ms);
    let mut request = ViewRequest::default();
    // The what-if mode's fork plays on a clock of its own: the capture's is still.
    let mut fork: Option<Box<OwnClock>> = None;
    // The fork asked for, while it is made on a thread of its own.
    let mut forking: Option<Forking> = None;
    // One state: diagnosed once, on a thread of its own.
    let mut diagnoser = super::diagnose::Diagnoser::default();
    let first = super::diagnose::poll_point(
        &polled.refused,
        &polled.changelog,
        state.clone(),
        ForkedFrom::Capture,
    );
    diagnoser.start(Box::new(move || Some(first)));
    loop {
        if let Some(n) = arrived_on_own_clock(&mut forking, &mut fork, false)
            && out.send(SourceEvent::Notice(n)).await.is_err()
        {
            return Ok(());
        }
        let clock = ClockView {
            time_ms: state.now_ms,
            paused: fork.as_ref().is_none_or(|f| f.paused),
            speed: fork.as_ref().map_or(1.0, |f| f.speed),
            ..ClockView::default()
        };
        let whatif = (fork.as_mut()).map(|f| Box::new(f.view(&request, &clock)));
        let mut v = still_view(
            (&state, &polled.refused, &still),
            (&request, &label, clock),
            (diagnoser.latest(), whatif),
        );
        v.forking = forking.as_ref().map(Forking::progress);
        if out.send(SourceEvent::View(Box::new(v))).await.is_err() {
            return Ok(());
        }
        let diagnosing = diagnoser.running();
        let c = if fork.is_some() || forking.is_some() {
            tokio::select! {
                c = ctl.recv() => c,
                () = diagnoser.arrival(), if diagnosing => continue,
                () = tokio::time::sleep(FRAME) => {
                    if let Some(f) = fork.as_mut() {
                        f.tick();
                    }
                    continue;
                }
            }
        } else {
            tokio::select! {
                c = ctl.recv() => c,
                () = diagnoser.arrival(), if diagnosing => continue,
            }
        };
        let Some(c) = c else {
            return Ok(());
        };
        let point = || {
            let (refused, changelog) = (&polled.refused, &polled.changelog);
            super::diagnose::poll_point(refused, changelog, state.clone(), ForkedFrom::Capture)
        };
        let notice = control(c, (&mut request, &mut fork, &mut forking), point);
        if let Some(n) = notice
            && out.send(SourceEvent::Notice(n)).await.is_err()
        {
            return Ok(());
        }
    }
}

/// A command from the UI to a still source; the notice to show, if any. `point` makes the
/// capture's state a fork's starting point; the fork is made on a thread of its own.
fn control(
    c: SourceControl,
    (request, fork, forking): (
        &mut ViewRequest,
        &mut Option<Box<OwnClock>>,
        &mut Option<Forking>,
    ),
    point: impl FnOnce() -> super::whatif::ForkPoint,
) -> Option<String> {
    match c {
        SourceControl::View(r) => *request = r,
        SourceControl::SetPaused(p) => {
            if let Some(f) = fork.as_mut() {
                f.paused = p;
            }
        }
        SourceControl::SetSpeed(s) => {
            if let Some(f) = fork.as_mut() {
                f.speed = s;
            }
        }
        SourceControl::Step(_)
        | SourceControl::SeekBy(_)
        | SourceControl::Migration { .. }
        | SourceControl::Restart => {
            return Some("a capture is one still state: nothing to step or seek".to_string());
        }
        SourceControl::WhatIf(None) => (*fork, *forking) = (None, None),
        SourceControl::WhatIf(Some(text)) => {
            (*fork, *forking) = (None, None);
            match Forking::start(point(), &text, request.collection) {
                Ok(f) => *forking = Some(f),
                Err(e) => return Some(format!("what if: {e}")),
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Simulator, scenario};

    #[tokio::test]
    async fn a_still_state_answers_views_and_says_it_cannot_step() {
        let sc = scenario::built_in("ascending")
            .expect("known")
            .expect("a scenario");
        let mut sim = Simulator::from_scenario(&sc, sc.seed, None).expect("runs");
        sim.run_until(10_000);
        let polled = OnePoll {
            state: sim.cluster.clone(),
            log: Vec::new(),
            changelog: Vec::new(),
            refused: Vec::new(),
        };
        let (to_ui, mut from_source) = mpsc::channel(8);
        let (to_source, controls) = mpsc::channel(8);
        let task = tokio::spawn(run_still(polled, "capture:c".into(), to_ui, controls));
        assert!(matches!(
            from_source.recv().await,
            Some(SourceEvent::Log { reset: true, .. })
        ));
        let Some(SourceEvent::View(v)) = from_source.recv().await else {
            panic!("a view first")
        };
        let at = sim.cluster.now_ms;
        assert_eq!(v.still, Some(taken_text(at)));
        assert_eq!(
            (v.heat, v.clock.time_ms, v.source.as_str()),
            (Some("off"), at, "capture:c")
        );
        to_source
            .send(SourceControl::Step(1_000))
            .await
            .expect("sent");
        // The diagnosis, worked out beside the source, may send its view first.
        let n = loop {
            match from_source.recv().await {
                Some(SourceEvent::Notice(n)) => break n,
                Some(SourceEvent::View(v)) => assert_eq!(v.clock.time_ms, at),
                _ => panic!("a notice"),
            }
        };
        assert!(n.contains("nothing to step"), "{n}");
        let Some(SourceEvent::View(again)) = from_source.recv().await else {
            panic!("the same view again")
        };
        assert_eq!(again.clock.time_ms, at);
        drop(to_source);
        drop(from_source);
        task.await.expect("ends").expect("without error");
        assert_eq!(
            taken_text(1_764_772_218_123),
            "capture taken 2025-12-03 14:30:18 UTC"
        );
    }
}
