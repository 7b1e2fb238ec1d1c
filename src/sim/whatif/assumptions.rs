//! What a fork measured of its source and what it assumed (the `assumptions` of a what-if's
//! output, docs/whatif.md "Calibration, and its limits"), and the estimates a fork of a read state
//! needs before it runs (the key distribution, `keys.rs`). One implementation for `shardtop
//! whatif` and the TUI's what-if mode. The migration rate is measured from the changelog
//! entries a source hands over (`calibration.rs`) when they hold enough migrations, the writes
//! from a trace's growth before the fork (`growth.rs`).
//!
//! Owns: that list and the preparation of a fork. May not touch: I/O, the source it came from.

use super::calibration::{Calibration, DonorFit, Earlier, Fit, Fits, MIN_SAMPLES, Sample, fits};
use super::growth::{Growth, Placed};
use crate::sim::balancer::explain::Unread;
use crate::sim::engine::Simulator;

/// The kind of source a fork was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForkedFrom {
    /// The simulator itself (`sim:SCENARIO@T`, the simulator's TUI).
    Simulator,
    /// A recorded trace at an instant.
    Trace,
    /// A capture file.
    Capture,
    /// A live cluster's poll.
    Live,
}

impl ForkedFrom {
    /// Whether its times are Unix seconds (a live cluster, a capture) rather than virtual ones.
    pub fn unix_clock(self) -> bool {
        matches!(self, Self::Live | Self::Capture)
    }
}

/// One input of a fork: its name, `measured` or `assumed`, and how.
pub type Assumption = (String, &'static str, String);

/// Prepares a fork of collection `c` (the key distribution a read state lacks) and says what of
/// it was measured and what assumed; the migration rate is not calibrated (see
/// [`prepare_calibrated`]).
pub fn prepare(from: ForkedFrom, sim: &mut Simulator, c: usize, unread: Unread) -> Vec<Assumption> {
    prepare_calibrated(from, sim, c, unread, &Calibration::default())
}

/// [`prepare`], the migration rate fitted to the migrations of the source's changelog
/// (`calibration`) when it holds enough of them.
pub fn prepare_calibrated(
    from: ForkedFrom,
    sim: &mut Simulator,
    c: usize,
    unread: Unread,
    calibration: &Calibration,
) -> Vec<Assumption> {
    let measured = (from != ForkedFrom::Simulator).then(|| {
        [
            migration_rate(sim, calibration),
            writes(sim, c, calibration),
        ]
    });
    let mut assumed = assumptions(from, sim, unread);
    for m in measured.into_iter().flatten() {
        if let Some(slot) = assumed.iter_mut().find(|a| a.0 == m.0) {
            *slot = m;
        }
    }
    if from != ForkedFrom::Simulator {
        use super::keys::Spread;
        let spread = super::keys::spread_evenly(sim, c);
        let note = match spread {
            Spread::Made => {
                "each chunk's documents spread evenly over its range, on the shard key's first \
                 field (where a migration of part of a chunk cuts it)"
            }
            Spread::Empty => "none: no chunk holds documents, as read",
            Spread::KeysKnown => "the documents' keys as the source keeps them",
            Spread::NotInterpolated => {
                "unknown for this key (bounds of a type not interpolated, or a compound key's \
                 bounds sharing their first field): a migration moves whole chunks, and one too \
                 big fails (ChunkTooBig)"
            }
        };
        let how = if spread == Spread::KeysKnown {
            "measured"
        } else {
            "assumed"
        };
        assumed.push(("keyDistribution".into(), how, note.into()));
    }
    assumed
}

/// The writes of the fork: the growth before it, applied as inserts (`growth.rs`), where the
/// source has an earlier state (a trace) or an earlier poll's totals (a live session).
fn writes(sim: &mut Simulator, c: usize, calibration: &Calibration) -> Assumption {
    let say = |how, note: String| ("writes".to_string(), how, note);
    let ns = sim.cluster.collections[c].ns.clone();
    let (g, of, placed) = match &calibration.earlier {
        Err(why) => {
            return say(
                "assumed",
                format!("none: the fork runs without writes ({why})"),
            );
        }
        Ok(Earlier::State(before, span_ms)) => {
            let minutes = minutes(*span_ms);
            let Some(then) = before.collection(&ns) else {
                let note = format!("none: {ns} was not sharded {minutes} before the fork");
                return say("assumed", note);
            };
            let coll = &sim.cluster.collections[c];
            if let Some(recent) = calibration.recent.as_ref().and_then(|r| r.collection(&ns)) {
                let last = super::growth::growth(recent, coll, 60_000);
                if last.docs <= 0 {
                    let note = format!(
                        "none: it grew over the last {minutes} of the trace, but not in its last \
                         minute ({:+} docs): the writes stopped, and stay stopped in the fork",
                        last.docs
                    );
                    return say("measured", note);
                }
            }
            let g = super::growth::growth(then, coll, *span_ms);
            let placed = "in the shares of the key ranges that grew";
            (g, format!("the last {minutes} of the trace"), placed)
        }
        Ok(Earlier::Totals(totals)) => {
            let span_ms = sim.now_ms().saturating_sub(totals.at_ms);
            let minutes = minutes(span_ms);
            let Some(then) = totals.by_ns.get(&ns) else {
                let note = format!("none: {ns} was not sharded at the poll {minutes} before");
                return say("assumed", note);
            };
            let coll = &sim.cluster.collections[c];
            let (g, placed) = super::growth::growth_by_shard(then, &sim.cluster, coll, span_ms);
            let placed = match placed {
                Placed::ByHeat => "where the heat source's writes per chunk of the last 60 s went",
                Placed::ByShard => {
                    "as each shard grew, spread evenly over its chunks (assumed: a mongos does \
                     not know where in a shard's ranges documents land)"
                }
            };
            (g, format!("the polls of the last {minutes}"), placed)
        }
    };
    grown_writes(sim, c, &g, &of, placed)
}

fn minutes(span_ms: u64) -> String {
    format!("{:.1} min", span_ms as f64 / 60_000.0)
}

/// The fork's writes made of growth `g` over `of`, placed in the key space as `placed` says.
fn grown_writes(sim: &mut Simulator, c: usize, g: &Growth, of: &str, placed: &str) -> Assumption {
    const UNSEEN: &str = "inserts assumed; updates and deletes that don't change the size are \
                          invisible";
    let say = |how, note: String| ("writes".to_string(), how, note);
    let rate = g.docs as f64 * 1000.0 / g.span_ms.max(1) as f64;
    if g.docs <= 0 {
        let note = format!(
            "none: no growth over {of} ({:+} docs), so the fork runs without writes ({UNSEEN})",
            g.docs
        );
        return say("measured", note);
    }
    match super::growth::apply(sim, c, g) {
        Ok(()) => say(
            "measured",
            format!(
                "growth of {rate:+.1} docs/s over {of}, inserted {placed}, {} a document \
                 ({UNSEEN})",
                crate::units::human_bytes(u64::try_from(g.bytes / g.docs).unwrap_or(0))
            ),
        ),
        Err(why) => say(
            "assumed",
            format!(
                "none: it grew {rate:+.1} docs/s over {of}, but {why}, so the fork runs without \
                 writes"
            ),
        ),
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// The cost model of the fork's migrations: fitted to the changelog's migrations (and set in
/// `sim`: the settings' for every donor, each donor's own where it has enough) when there are
/// enough, else the simulator's own, said as assumed.
fn migration_rate(sim: &mut Simulator, calibration: &Calibration) -> Assumption {
    let set = &sim.cluster.settings;
    let cost = format!(
        "{} ms + bytes ÷ {}/s per migration",
        set.migration_overhead_ms,
        crate::units::human_bytes(set.migration_bytes_per_sec)
    );
    let m = match &calibration.migrations {
        Err(why) => {
            let note = format!("the simulator's cost model, {cost} (not calibrated: {why})");
            return ("migrationRate".into(), "assumed", note);
        }
        Ok(m) => m,
    };
    let paired =
        "a moveChunk.commit's clonedBytes paired with its donor's moveChunk.from step times";
    let Some(Fits { all, by_donor }) = fits(&m.samples, set.migration_bytes_per_sec) else {
        let note = format!(
            "the simulator's cost model, {cost}: the changelog read holds {} ({} moveChunk.commit, \
             {} moveChunk.from with step times), fewer than {MIN_SAMPLES} to measure from",
            crate::units::count(m.samples.len() as u64, "timed migration"),
            m.commits,
            m.timed
        );
        return ("migrationRate".into(), "assumed", note);
    };
    let set = &mut sim.cluster.settings;
    set.migration_overhead_ms = all.overhead_ms;
    set.migration_bytes_per_sec = all.bytes_per_sec;
    let per_donor = donors(sim, &m.samples, &by_donor);
    let note = format!(
        "{} in the changelog ({paired}), median {}, {}; cluster-wide{per_donor}",
        crate::units::count(m.samples.len() as u64, "migration"),
        seconds(all.median_ms),
        model(&all),
    );
    ("migrationRate".into(), "measured", note)
}

/// Sets each donor's own cost model in `sim` and says them, or, when the migrations came from one
/// donor only (its fit is the cluster-wide one), which.
fn donors(sim: &mut Simulator, samples: &[Sample], by_donor: &[DonorFit]) -> String {
    sim.migration_cost_by_donor.clear();
    if by_donor.is_empty() {
        return match samples.first() {
            Some(s) => format!(" (every one from {})", s.donor),
            None => String::new(),
        };
    }
    let mut said = Vec::new();
    for (id, f) in by_donor {
        match f {
            Ok(f) => {
                let cost = crate::sim::balancer::MigrationCost {
                    overhead_ms: f.overhead_ms,
                    bytes_per_sec: f.bytes_per_sec,
                };
                sim.migration_cost_by_donor.insert(id.clone(), cost);
                let n = samples.iter().filter(|s| s.donor == *id).count();
                said.push(format!(
                    "{id} {}, {}",
                    crate::units::count(n as u64, "migration"),
                    model(f)
                ));
            }
            Err(n) => said.push(format!("{id} {n} (too few: cluster-wide)")),
        }
    }
    format!(", and per donor: {}", said.join("; "))
}

/// A fit in words: its rate and fixed cost, the rate said as assumed when not measured.
fn model(f: &Fit) -> String {
    let rate = crate::units::human_bytes(f.bytes_per_sec);
    if f.rate_measured {
        format!("{rate}/s + {} each", seconds(f.overhead_ms))
    } else {
        format!(
            "{} each + bytes ÷ {rate}/s (assumed: their sizes are too alike to tell a rate)",
            seconds(f.overhead_ms)
        )
    }
}

/// What the fork measured of the source and what it assumed.
pub fn assumptions(from: ForkedFrom, sim: &Simulator, unread: Unread) -> Vec<Assumption> {
    let set = &sim.cluster.settings;
    let cost = format!(
        "{} ms + bytes ÷ {}/s per migration",
        set.migration_overhead_ms,
        crate::units::human_bytes(set.migration_bytes_per_sec)
    );
    let mut out = Vec::new();
    let mut say = |what: &str, how, note: String| out.push((what.to_string(), how, note));
    if from == ForkedFrom::Simulator {
        // The fork is the simulator itself: its model and its scenario are what it assumes, never
        // something measured of a cluster; its chunks' sizes are read off its own state.
        say(
            "migrationRate",
            "assumed",
            format!("the simulator's own cost model: {cost}"),
        );
        say(
            "writes",
            "assumed",
            "the scenario's workloads and scheduled actions continue, same random stream".into(),
        );
        say(
            "chunkSizes",
            "measured",
            "each chunk's size in the simulator's state".into(),
        );
        return out;
    }
    say(
        "migrationRate",
        "assumed",
        format!("the simulator's cost model, {cost} (not calibrated from the changelog)"),
    );
    say(
        "writes",
        "assumed",
        "none: the fork runs without writes (the write rate and key distribution are not calibrated)"
            .into(),
    );
    let sizes = match (from, unread.sizes, unread.chunk_docs) {
        (_, true, _) => (
            "assumed",
            "the shards' data sizes could not be read: chunks count as empty",
        ),
        (ForkedFrom::Trace, false, _) => ("measured", "as the trace keeps them"),
        (_, false, true) => (
            "measured",
            "each shard's data size read, spread evenly over its chunks",
        ),
        (_, false, false) => ("measured", "each chunk's size read"),
    };
    say("chunkSizes", sizes.0, sizes.1.into());
    if unread.balancer {
        say(
            "balancerSettings",
            "assumed",
            "not all read: the defaults stand for what was not".into(),
        );
    }
    if unread.window {
        say(
            "activeWindow",
            "assumed",
            "the config server's time zone is unknown: the window is read as UTC".into(),
        );
    }
    out
}
