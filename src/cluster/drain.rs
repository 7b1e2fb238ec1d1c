//! A live cluster's shard drains: what remains on each draining shard, as `shardDrainingStatus`
//! (8.2+) reports it or as the catalog shows it, and an estimate of the time left from the rate
//! observed between polls. The simulator's drains are `sim::drains`'.
//!
//! Owns: these values and their words. May not touch: I/O, the wall clock (times are passed in).

/// Where a drain's figures come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrainSource {
    /// `shardDrainingStatus` (8.2+): the config server's own count.
    Reported,
    /// `config.shards` `draining: true`, counted from `config.chunks`, `config.collections`
    /// and `config.databases` (before 8.2, or when the command is refused or fails).
    Derived,
}

impl DrainSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reported => "shardDrainingStatus",
            Self::Derived => "derived",
        }
    }
}

/// One draining shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrainStatus {
    pub shard: String,
    pub source: DrainSource,
    /// `state` of the reply (`ongoing`, `drainingComplete`, …); `None` when derived.
    pub state: Option<String>,
    /// `remaining.chunks`: the sharded collections' chunks still on the shard.
    pub chunks: u64,
    /// `remaining.jumboChunks`.
    pub jumbo_chunks: u64,
    /// `dbsToMove`: databases whose primary is the shard (`movePrimary` them).
    pub dbs_to_move: Vec<String>,
    /// `collectionsToMove` (8.0+): unsharded collections on the shard (`moveCollection` them).
    pub collections_to_move: Vec<String>,
    /// The reply said its lists were cut (`truncated: true`).
    pub truncated: bool,
    /// Seconds left at the chunk rate observed since watching began; `None` with no progress
    /// seen yet. An estimate, never the server's.
    pub eta_secs: Option<u64>,
    /// Over how many seconds that rate was observed.
    pub rate_over_secs: u64,
}

impl DrainStatus {
    /// One line: the shard, what remains, what blocks it, and the rate observed since watching
    /// began (the estimate of its end is the diagnosis's, which may rest on this rate).
    pub fn text(&self) -> String {
        let mut parts = vec![format!(
            "draining {}: {} left{}",
            self.shard,
            crate::units::count(self.chunks, "chunk"),
            if self.jumbo_chunks > 0 {
                format!(" ({} jumbo)", self.jumbo_chunks)
            } else {
                String::new()
            }
        )];
        if !self.collections_to_move.is_empty() {
            parts.push(format!(
                "moveCollection {}",
                self.collections_to_move.join(", ")
            ));
        }
        if !self.dbs_to_move.is_empty() {
            parts.push(format!("movePrimary {}", self.dbs_to_move.join(", ")));
        }
        if self.truncated {
            parts.push("lists cut by the server".to_string());
        }
        if let Some(state) = &self.state
            && state != "ongoing"
        {
            parts.push(state.clone());
        }
        if self.eta_secs.is_none() {
            parts.push("no progress seen yet".to_string());
        }
        parts.push(format!("({})", self.source.as_str()));
        parts.join(" · ")
    }
}

/// Seconds left for `now` chunks at the rate from `first` (chunks, at ms) to `now` (chunks, at
/// ms): `None` when nothing moved or no time passed.
pub fn eta_secs(first: (u64, u64), now: (u64, u64)) -> Option<u64> {
    let (c0, t0) = first;
    let (c1, t1) = now;
    let moved = c0.checked_sub(c1).filter(|&m| m > 0)?;
    let ms = t1.checked_sub(t0).filter(|&d| d > 0)?;
    let secs = u128::from(c1) * u128::from(ms) / u128::from(moved) / 1000;
    Some(u64::try_from(secs).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_the_observed_rate_or_nothing() {
        // 100 chunks left at t=0, 80 at t=60 s: 20 per minute, 80 left → 240 s.
        assert_eq!(eta_secs((100, 0), (80, 60_000)), Some(240));
        assert_eq!(eta_secs((100, 0), (100, 60_000)), None, "no progress");
        assert_eq!(eta_secs((80, 0), (100, 60_000)), None, "it grew");
        assert_eq!(eta_secs((100, 5), (90, 5)), None, "no time passed");
        let d = DrainStatus {
            shard: "sh2".into(),
            source: DrainSource::Reported,
            state: Some("ongoing".into()),
            chunks: 80,
            jumbo_chunks: 2,
            dbs_to_move: vec!["TestDB".into()],
            collections_to_move: vec!["TestDB.CollUnsharded".into()],
            truncated: false,
            eta_secs: Some(240),
            rate_over_secs: 60,
        };
        assert_eq!(
            d.text(),
            "draining sh2: 80 chunks left (2 jumbo) · moveCollection TestDB.CollUnsharded · \
             movePrimary TestDB · (shardDrainingStatus)"
        );
    }
}
