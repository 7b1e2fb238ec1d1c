//! The one way to name a source, for the commands that read a state (`explain`): `sim:SCENARIO[@T]`
//! (the simulator at virtual time T), a capture file (`shardtop capture`: the poll it kept, run
//! again offline), a trace file (`--at T`), `mongodb://…` / `mongodb+srv://…` (one read-only
//! poll, as `watch --once` does). Each resolves to an owned state and what of it could not be
//! read. A bad argument: exit 2 naming it.
//!
//! May import `super::{Failure, settings, scenario_file}` and the floors; never a command module.

use std::path::PathBuf;
use std::time::Duration;

use super::Failure;
use crate::cluster::{Cluster, ServerVersion};
use crate::sim::Simulator;
use crate::sim::balancer::explain::Unread;
use crate::sim::whatif::calibration::Calibration;

/// A SOURCE argument, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceArg {
    /// `sim:SCENARIO[@T]`: `at_ms` `None` is the scenario's end.
    Sim {
        scenario: String,
        at_ms: Option<u64>,
    },
    /// A capture file (`shardtop capture`).
    Capture { path: PathBuf },
    /// A trace file (`sim --record`, `record`).
    Trace { path: PathBuf },
    /// A mongos (or `mongodb+srv://`), read once, read-only.
    Live { uri: String },
}

/// A resolved source: its words for messages, the state, what of it is unknown, and what a
/// fork of it calibrates with (the changelog's migrations, where the source keeps them).
pub struct Resolved {
    pub label: String,
    pub state: State,
    pub unread: Unread,
    pub calibration: Calibration,
}

/// The state read: the simulator itself (its AutoMerger and schedule kept), or a cluster.
pub enum State {
    Sim(Box<Simulator>),
    Cluster(Box<Cluster>),
}

impl SourceArg {
    /// What a fork of this source says it was forked from.
    pub fn forked_from(&self) -> crate::sim::whatif::assumptions::ForkedFrom {
        use crate::sim::whatif::assumptions::ForkedFrom;
        match self {
            Self::Sim { .. } => ForkedFrom::Simulator,
            Self::Trace { .. } => ForkedFrom::Trace,
            Self::Capture { .. } => ForkedFrom::Capture,
            Self::Live { .. } => ForkedFrom::Live,
        }
    }
}

impl Resolved {
    /// The state as a fork (and a diagnosis) starts from it.
    pub fn fork_point(
        self,
        from: crate::sim::whatif::assumptions::ForkedFrom,
    ) -> crate::source::whatif::ForkPoint {
        crate::source::whatif::ForkPoint {
            unread: self.unread,
            calibration: self.calibration.clone(),
            from,
            sim: self.simulator(),
        }
    }

    /// A simulator over the state (a cluster is taken as it is, its clock and migrations kept).
    pub fn simulator(self) -> Simulator {
        match self.state {
            State::Sim(sim) => *sim,
            State::Cluster(cluster) => Simulator::over(*cluster),
        }
    }
}

/// A time: a duration as the CLI's other durations take it (`90s`, `5m`, a bare number of
/// seconds), or `0`.
fn time_ms(text: &str, what: &str) -> Result<u64, Failure> {
    if text.trim().trim_end_matches('s').trim_end_matches('m') == "0" {
        return Ok(0);
    }
    super::settings::duration(text)
        .map(|d| d.as_millis() as u64)
        .map_err(|e| Failure::input(format!("{what}: {}", e.message)))
}

impl SourceArg {
    /// Parses SOURCE (with `--at`, a trace file's time only).
    pub fn parse(text: &str, at: Option<&str>) -> Result<(Self, Option<u64>), Failure> {
        if text.starts_with("mongodb://") || text.starts_with("mongodb+srv://") {
            if at.is_some() {
                return Err(Failure::input(
                    "--at: a live cluster is read now; --at is a trace file's time",
                ));
            }
            return Ok((
                Self::Live {
                    uri: text.to_string(),
                },
                None,
            ));
        }
        if let Some(rest) = text.strip_prefix("sim:") {
            if at.is_some() {
                return Err(Failure::input(format!(
                    "--at: a simulator's time is given in SOURCE, as sim:{rest}@T"
                )));
            }
            let (scenario, at_ms) = match rest.rsplit_once('@') {
                Some((name, t)) => (name, Some(time_ms(t, &format!("SOURCE {text}"))?)),
                None => (rest, None),
            };
            if scenario.is_empty() {
                return Err(Failure::input(format!(
                    "SOURCE {text}: name a scenario, as sim:ascending (see `shardtop scenarios`)"
                )));
            }
            let scenario = scenario.to_string();
            return Ok((Self::Sim { scenario, at_ms }, None));
        }
        let path = PathBuf::from(text);
        if path.exists() && !path.is_file() {
            // A FIFO or a pipe (`<(zcat c.capture.zst)`) could be read only once: its first line
            // says what it is, and the reader would open it again.
            return Err(Failure::input(format!(
                "SOURCE {text}: not a regular file (a FIFO, a pipe or a folder); write it to a \
                 file first (`cat … > c.capture`), or look at it with `shardtop open`"
            )));
        }
        if !path.is_file() {
            return Err(Failure::input(format!(
                "SOURCE {text}: no such file; a source is sim:SCENARIO[@T], a capture or trace file, or mongodb://…"
            )));
        }
        // A capture file says so on its first line; anything else is read as a trace.
        if crate::capture::file::is_capture(&path) {
            if at.is_some() {
                return Err(Failure::input(format!(
                    "--at: {text} is a capture, one instant; --at is a trace file's time"
                )));
            }
            return Ok((Self::Capture { path }, None));
        }
        let at_ms = at.map(|t| time_ms(t, "--at")).transpose()?;
        Ok((Self::Trace { path }, at_ms))
    }
}

/// Reads the source named by `text` (and `--at`): `version` is the release line a `sim:` source
/// runs as.
pub fn resolve(
    text: &str,
    at: Option<&str>,
    version: Option<ServerVersion>,
) -> Result<Resolved, Failure> {
    let (arg, at_ms) = SourceArg::parse(text, at)?;
    if version.is_some() && !matches!(arg, SourceArg::Sim { .. }) {
        return Err(Failure::input(
            "--server-version: only a sim: source runs as a chosen release line",
        ));
    }
    match arg {
        SourceArg::Sim { scenario, at_ms } => {
            let (sc, label) = super::scenario_file::load(Some(scenario.as_str()), None)
                .map_err(|f| Failure::input(format!("SOURCE {text}: {}", f.message)))?;
            let mut sim = Simulator::from_scenario(&sc, sc.seed, version)
                .map_err(|e| Failure::input(format!("SOURCE {text}: {e}")))?;
            let until = at_ms.unwrap_or_else(|| (sc.until * 1000.0).round() as u64);
            sim.run_until(until);
            Ok(Resolved {
                label: format!("sim:{label}"),
                state: State::Sim(Box::new(sim)),
                unread: Unread::default(),
                calibration: Calibration {
                    migrations: Err("the simulator's own".into()),
                    earlier: Err("the simulator's own".into()),
                    recent: None,
                },
            })
        }
        SourceArg::Capture { path } => capture(&path),
        SourceArg::Trace { path } => trace(&path, at_ms),
        SourceArg::Live { uri } => live(&uri),
    }
}

fn trace(path: &std::path::Path, at_ms: Option<u64>) -> Result<Resolved, Failure> {
    use crate::trace::{ReadOptions, Replay};
    let failure = |e: crate::trace::TraceError| {
        if e.input {
            Failure::input(e.message)
        } else {
            Failure::runtime(e.message)
        }
    };
    let replay = Replay::open(path, ReadOptions::default()).map_err(failure)?;
    for w in &replay.trace.warnings {
        eprintln!(
            "shardtop: warning: {}",
            crate::units::printable::printable(w)
        );
    }
    let end = replay.end_ms();
    let until = at_ms.unwrap_or(end);
    if until > end {
        return Err(Failure::input(format!(
            "--at: {} ends at {} s",
            path.display(),
            end as f64 / 1000.0
        )));
    }
    let live = replay.trace.header.live_start_ms().is_some();
    let (calibration, cluster) =
        crate::source::whatif::calibrate::of_trace(replay.trace.clone(), until).map_err(failure)?;
    let unread = crate::source::explain::unread_of(
        live,
        &cluster,
        cluster.poll_notes.iter().map(|(p, _)| p),
    );
    Ok(Resolved {
        label: format!("replay:{}", path.display()),
        state: State::Cluster(cluster),
        unread,
        calibration,
    })
}

/// A capture: the poll it kept, run again through the live poller (the same state `open` shows).
fn capture(path: &std::path::Path) -> Result<Resolved, Failure> {
    let file = path.display().to_string();
    let replay = crate::capture::file::read_replay(path).map_err(|e| Failure::input(e.0))?;
    let rt = super::terminal::runtime()?;
    let (polled, _missing) = rt
        .block_on(crate::live::one_poll::replay_reads(replay))
        .map_err(|e| {
            Failure::input(format!(
                "{file}: the capture cannot be opened: {}",
                e.message
            ))
        })?;
    Ok(polled_state(format!("capture:{file}"), polled))
}

/// A poll's state, its refused reads said on standard error and marked unknown.
fn polled_state(label: String, polled: crate::live::one_poll::OnePoll) -> Resolved {
    for r in &polled.refused {
        eprintln!(
            "shardtop: warning: {} ({})",
            crate::units::printable::printable(&r.text),
            r.feeds.label()
        );
    }
    let point = crate::source::diagnose::poll_point(
        &polled.refused,
        &polled.changelog,
        polled.state.clone(),
        crate::sim::whatif::assumptions::ForkedFrom::Live,
    );
    Resolved {
        label,
        state: State::Cluster(Box::new(polled.state)),
        unread: point.unread,
        calibration: point.calibration,
    }
}

fn live(uri: &str) -> Result<Resolved, Failure> {
    let rt = super::terminal::runtime()?;
    let hosts = crate::live::client::hosts(uri);
    let read = crate::live::poller::poll_once(uri, Duration::from_secs(10));
    let polled = super::terminal::driver_panic::block_on(&rt, &hosts, read)?.map_err(|e| {
        if e.input {
            Failure::input(e.message)
        } else {
            Failure::runtime(e.message)
        }
    })?;
    Ok(polled_state(crate::live::client::hosts(uri), polled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_names_take_a_time() {
        let (arg, _) = SourceArg::parse("sim:drain@90s", None).expect("parses");
        assert_eq!(
            arg,
            SourceArg::Sim {
                scenario: "drain".into(),
                at_ms: Some(90_000)
            }
        );
        let (arg, _) = SourceArg::parse("sim:drain@5m", None).expect("parses");
        assert!(matches!(
            arg,
            SourceArg::Sim {
                at_ms: Some(300_000),
                ..
            }
        ));
        let (arg, _) = SourceArg::parse("sim:drain", None).expect("parses");
        assert!(matches!(arg, SourceArg::Sim { at_ms: None, .. }));
    }

    #[test]
    fn bad_sources_are_input_errors_naming_the_argument() {
        for (text, at) in [
            ("sim:drain@soon", None),
            ("sim:", None),
            ("sim:drain", Some("5s")),
            ("mongodb://h:27017", Some("5s")),
            ("/no/such/file.trace", None),
        ] {
            let e = SourceArg::parse(text, at).expect_err(text);
            assert_eq!(e.code, 2, "{text}");
            assert!(
                e.message.contains(text) || e.message.starts_with("--at"),
                "{text}: {}",
                e.message
            );
        }
    }

    /// A FIFO (as a process substitution gives) or a folder is refused at once, never opened:
    /// reading a FIFO twice would wait for a writer that has gone.
    #[test]
    fn a_fifo_or_a_folder_is_refused_without_being_opened() {
        let dir = tempfile::tempdir().expect("dir");
        let fifo = dir.path().join("c.capture");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        for path in [fifo.as_path(), dir.path()] {
            let text = path.display().to_string();
            let e = SourceArg::parse(&text, None).expect_err(&text);
            assert_eq!(e.code, 2);
            assert!(e.message.contains("not a regular file"), "{}", e.message);
        }
    }
}
