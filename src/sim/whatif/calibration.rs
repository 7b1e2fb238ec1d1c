//! The migration rate of a fork measured from a source's `config.changelog`: each migration's
//! bytes (its `moveChunk.commit`'s `counts.clonedBytes`) paired with its donor's time (the
//! `moveChunk.from` entry's step times, summed), and the simulator's cost model (a fixed cost
//! plus bytes at a rate, `settings.migration_overhead_ms` and `migration_bytes_per_sec`) fitted
//! to those pairs: one fit of every migration (cluster-wide) and, where the migrations came from
//! more than one donor, one per donor with enough of them ([`fits`]; the simulator's
//! `Simulator::migration_cost_by_donor`).
//!
//! The entries are the server's. `src/mongo/db/s/move_timing_helper.cpp` logs
//! `moveChunk.from` when the donor's part ends: `min`, `max`, `to`, `from`, `note` (`success`
//! once every step is done, else `aborted`) and one field `"step K of N"` per step done, the
//! milliseconds since the step before (its timer is reset at each step), so their sum is the
//! donor's time; N differs per release line (8.0.32's real entry has 6), so every such field is
//! summed whatever N is. `src/mongo/db/s/migration_source_manager.cpp` logs
//! `moveChunk.commit` with `min`, `max`, `from`, `to` and `counts` (`cloned`, `clonedBytes`)
//! before the donor's part ends.
//!
//! Owns: reading those entries and the fit. May not touch: I/O (the sources hand the entries
//! over), the simulator (`assumptions.rs` applies the fit).

use bson::{Bson, Document};

/// Fewer paired migrations than this: the cost model is kept, and said to be assumed.
pub const MIN_SAMPLES: usize = 3;

/// A commit is paired with a donor's entry logged at most this long after the donor's steps
/// began or ended (the two entries are written by different servers' clocks and calls).
const SLACK_MS: i64 = 1_000;

/// A rate above this (1 TiB/s) is not told apart from no cost per byte.
const MAX_RATE: u64 = 1 << 40;

/// One migration measured: its donor shard, what it cloned and how long its donor took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The donor's shard id (the entries' `from`).
    pub donor: String,
    pub bytes: u64,
    pub ms: u64,
}

/// What a changelog held of migrations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Migrations {
    /// `moveChunk.commit` entries with `counts.clonedBytes`.
    pub commits: usize,
    /// `moveChunk.from` entries of a migration that succeeded, with step times.
    pub timed: usize,
    /// The migrations found in both, oldest first.
    pub samples: Vec<Sample>,
}

/// What a source hands a fork to calibrate it with.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The migrations its changelog held, or why it has none to read (a capture that kept
    /// no changelog, a trace of the simulator…).
    pub migrations: Result<Migrations, String>,
    /// What the source held some time before the fork, to measure the writes from its growth
    /// (`growth.rs`), or why there is none (a source of one instant).
    pub earlier: Result<Earlier, String>,
    /// A trace's state a minute before the fork: its writes go on in the fork only if it grew
    /// since (writes that stopped stay stopped). `None`: not known (a live session, a capture).
    pub recent: Option<Box<crate::cluster::Cluster>>,
}

/// What a source held some time before a fork.
#[derive(Clone, Debug)]
pub enum Earlier {
    /// A trace's state, and how long before the fork (ms).
    State(Box<crate::cluster::Cluster>, u64),
    /// A live session's poll: each collection's documents and bytes per shard.
    Totals(super::growth::Totals),
}

impl Default for Calibration {
    fn default() -> Self {
        Self {
            migrations: Err("the changelog was not read".into()),
            earlier: Err("no earlier state to measure growth from".into()),
            recent: None,
        }
    }
}

impl Calibration {
    /// From the changelog entries a source read (any order; other entries are passed over).
    pub fn of_changelog<'a>(entries: impl IntoIterator<Item = &'a Document>) -> Self {
        Self {
            migrations: Ok(migrations(entries)),
            ..Self::default()
        }
    }
}

/// The cost model fitted to the samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fit {
    pub overhead_ms: u64,
    pub bytes_per_sec: u64,
    /// The samples' median time.
    pub median_ms: u64,
    /// `false`: the sizes did not tell a rate from a fixed cost (all alike, or the time did
    /// not grow with them), so the rate was kept and only the fixed cost fitted.
    pub rate_measured: bool,
}

fn number(v: Option<&Bson>) -> Option<i64> {
    match v? {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(x) if x.is_finite() => Some(*x as i64),
        _ => None,
    }
}

/// `"step K of N"`: a step time's field.
fn is_step(field: &str) -> bool {
    let Some(rest) = field.strip_prefix("step ") else {
        return false;
    };
    let Some((k, n)) = rest.split_once(" of ") else {
        return false;
    };
    k.parse::<u32>().is_ok() && n.parse::<u32>().is_ok()
}

/// What keys the entries of one migration together: its namespace, bounds and shards.
fn key(e: &Document, d: &Document) -> Option<(String, String)> {
    let text = |k: &str| -> Option<String> {
        let v = d.get(k)?;
        Some(v.clone().into_canonical_extjson().to_string())
    };
    let from = d.get_str("from").ok()?;
    let key = format!(
        "{} {} {} {} {}",
        e.get_str("ns").ok()?,
        text("min")?,
        text("max")?,
        from,
        d.get_str("to").ok()?
    );
    Some((key, from.to_string()))
}

/// The migrations of a changelog: each donor's `moveChunk.from` (success, with step times)
/// paired with the latest unpaired `moveChunk.commit` of the same key logged while its steps
/// ran.
pub fn migrations<'a>(entries: impl IntoIterator<Item = &'a Document>) -> Migrations {
    let mut commits: Vec<(String, i64, u64, bool)> = Vec::new();
    let mut froms: Vec<((String, String), i64, u64)> = Vec::new();
    for e in entries {
        let (Ok(what), Ok(d), Ok(at)) = (
            e.get_str("what"),
            e.get_document("details"),
            e.get_datetime("time"),
        ) else {
            continue;
        };
        let (Some(key), at) = (key(e, d), at.timestamp_millis()) else {
            continue;
        };
        match what {
            "moveChunk.commit" => {
                let counts = d.get_document("counts").ok();
                if let Some(bytes) = counts.and_then(|c| number(c.get("clonedBytes"))) {
                    commits.push((key.0, at, bytes.max(0) as u64, false));
                }
            }
            "moveChunk.from" if d.get_str("note") == Ok("success") => {
                let steps: Vec<i64> = (d.iter())
                    .filter(|(k, _)| is_step(k))
                    .filter_map(|(_, v)| number(Some(v)))
                    .collect();
                if !steps.is_empty() {
                    froms.push((key, at, steps.iter().map(|s| s.max(&0)).sum::<i64>() as u64));
                }
            }
            _ => {}
        }
    }
    let mut out = Migrations {
        commits: commits.len(),
        timed: froms.len(),
        samples: Vec::new(),
    };
    let mut paired: Vec<(i64, Sample)> = Vec::new();
    for ((key, donor), at, ms) in froms {
        let began = at - ms as i64 - SLACK_MS;
        let commit = (commits.iter_mut())
            .filter(|c| !c.3 && c.0 == key && (began..=at + SLACK_MS).contains(&c.1))
            .max_by_key(|c| c.1);
        if let Some(c) = commit {
            c.3 = true;
            let bytes = c.2;
            paired.push((at, Sample { donor, bytes, ms }));
        }
    }
    paired.sort_by_key(|p| p.0);
    out.samples = paired.into_iter().map(|p| p.1).collect();
    out
}

/// The median of the samples' times (the upper one of an even count).
fn median_ms(samples: &[Sample]) -> u64 {
    let mut ms: Vec<u64> = samples.iter().map(|s| s.ms).collect();
    ms.sort_unstable();
    ms.get(ms.len() / 2).copied().unwrap_or(0)
}

/// The cost model `time = overhead + bytes ÷ rate` fitted to the samples by least squares, or
/// `None` with fewer than [`MIN_SAMPLES`]. A fit whose fixed cost comes out negative is fitted
/// again through zero; sizes that do not tell a rate apart keep `model_rate` and fit the fixed
/// cost to the median migration.
pub fn fit(samples: &[Sample], model_rate: u64) -> Option<Fit> {
    if samples.len() < MIN_SAMPLES {
        return None;
    }
    let n = samples.len() as f64;
    let mean_b = samples.iter().map(|s| s.bytes as f64).sum::<f64>() / n;
    let mean_t = samples.iter().map(|s| s.ms as f64).sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for s in samples {
        let db = s.bytes as f64 - mean_b;
        sxx += db * db;
        sxy += db * (s.ms as f64 - mean_t);
    }
    let median = median_ms(samples);
    let rate_of = |ms_per_byte: f64| ((1000.0 / ms_per_byte) as u64).clamp(1, MAX_RATE);
    if sxx <= 0.0 || sxy <= 0.0 {
        // The median migration's time less its bytes at the model's rate.
        let mut bytes: Vec<u64> = samples.iter().map(|s| s.bytes).collect();
        bytes.sort_unstable();
        let b = bytes[bytes.len() / 2];
        let copy_ms = b.saturating_mul(1000) / model_rate.max(1);
        return Some(Fit {
            overhead_ms: median.saturating_sub(copy_ms),
            bytes_per_sec: model_rate,
            median_ms: median,
            rate_measured: false,
        });
    }
    let slope = sxy / sxx;
    let intercept = mean_t - slope * mean_b;
    let (overhead, slope) = if intercept >= 0.0 {
        (intercept, slope)
    } else {
        let sbt: f64 = samples.iter().map(|s| s.bytes as f64 * s.ms as f64).sum();
        let sbb: f64 = samples.iter().map(|s| (s.bytes as f64).powi(2)).sum();
        (0.0, sbt / sbb)
    };
    Some(Fit {
        overhead_ms: overhead.round() as u64,
        bytes_per_sec: rate_of(slope),
        median_ms: median,
        rate_measured: true,
    })
}

/// A donor's own fit, or how many of its migrations were found when too few to fit.
pub type DonorFit = (String, Result<Fit, usize>);

/// The fits of a changelog's migrations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fits {
    /// Of every migration: the cost model of the donors without one of their own (and of the
    /// shards a fork adds, which have none).
    pub all: Fit,
    /// Each donor's, in shard id order, when the migrations came from more than one donor
    /// (empty otherwise: the one donor's fit is `all`).
    pub by_donor: Vec<DonorFit>,
}

/// [`fit`] of every sample and of each donor's (the donors with fewer than [`MIN_SAMPLES`] say
/// how many they have), or `None` with fewer than [`MIN_SAMPLES`] in all. A donor whose sizes do
/// not tell a rate apart keeps the cluster-wide rate.
pub fn fits(samples: &[Sample], model_rate: u64) -> Option<Fits> {
    let all = fit(samples, model_rate)?;
    let mut donors: std::collections::BTreeMap<&str, Vec<Sample>> =
        std::collections::BTreeMap::new();
    for s in samples {
        donors.entry(&s.donor).or_default().push(s.clone());
    }
    let by_donor = if donors.len() < 2 {
        Vec::new()
    } else {
        (donors.into_iter())
            .map(|(id, mine)| {
                let f = fit(&mine, all.bytes_per_sec).ok_or(mine.len());
                (id.to_string(), f)
            })
            .collect()
    };
    Some(Fits { all, by_donor })
}

#[cfg(test)]
#[path = "calibration_tests.rs"]
mod tests;
