//! Which chunks got which version lately: what the index on `lastmod` gives a config server, so
//! "the chunks with `lastmod` at least v" — a router's incremental refresh — is answered from the
//! recent changes instead of a scan of every chunk. Only the latest assignments are kept; a
//! question older than them gets no answer (the caller scans).

use crate::model::{ChunkVersion, ShardKey};

/// Assignments kept after a trim (up to twice as many are held).
const KEEP: usize = 4096;

/// The versions given to chunks, with the lower bound of each chunk given one.
#[derive(Clone, Debug, Default)]
pub(super) struct VersionLog {
    entries: Vec<(ChunkVersion, ShardKey)>,
    /// Every version given before the entries is at most this.
    floor: ChunkVersion,
}

impl VersionLog {
    /// A log of a table whose chunks all have versions up to `floor`.
    pub(super) fn starting_at(floor: ChunkVersion) -> Self {
        Self {
            entries: Vec::new(),
            floor,
        }
    }

    /// Chunk `min` was given `version`.
    pub(super) fn note(&mut self, version: ChunkVersion, min: &ShardKey) {
        if self.entries.len() >= 2 * KEEP {
            for (v, _) in self.entries.drain(..KEEP) {
                self.floor = self.floor.max(v);
            }
        }
        self.entries.push((version, min.clone()));
    }

    /// The lower bounds of the chunks given a version at least `at` (above it when `strict`),
    /// or `None` when the log does not reach back that far.
    pub(super) fn since(
        &self,
        at: ChunkVersion,
        strict: bool,
    ) -> Option<impl Iterator<Item = &ShardKey>> {
        let reaches = if strict {
            at >= self.floor
        } else {
            at > self.floor
        };
        reaches.then(|| {
            self.entries
                .iter()
                .filter(move |(v, _)| if strict { *v > at } else { *v >= at })
                .map(|(_, min)| min)
        })
    }
}
