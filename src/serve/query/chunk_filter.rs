//! A necessary condition that a `find`'s filter puts on `config.chunks`, checked on the routing
//! table before a chunk's document is built: the top-level `lastmod: {$gte|$gt: Timestamp}` of
//! an incremental refresh and the top-level `jumbo: true`. Chunks it admits are still matched
//! against the whole filter, so it only saves building documents that could not match — a
//! refresh of a 1,000,000-chunk collection builds the few changed documents, not all of them.

use bson::{Bson, Document};

use crate::model::{ChunkInfo, ChunkVersion, RoutingTable};

/// What the filter certainly requires of a chunk.
#[derive(Clone, Debug, Default)]
pub struct ChunkPrefilter {
    /// `lastmod` at least (`$gte`) or above (`$gt`) this Timestamp, as (time, increment): the
    /// order the matcher gives Timestamps (`model::KeyValue`).
    lastmod: Vec<((u32, u32), bool)>,
    /// `jumbo: true`.
    jumbo: bool,
}

impl ChunkPrefilter {
    /// The conditions of `filter`'s top level this prefilter understands (others are left to
    /// the full match).
    pub fn of(filter: Option<&Document>) -> Self {
        let mut out = Self::default();
        let Some(filter) = filter else {
            return out;
        };
        if let Some(Bson::Document(ops)) = filter.get("lastmod") {
            for (op, bound) in ops {
                if let Bson::Timestamp(t) = bound {
                    let at = (t.time, t.increment);
                    match op.as_str() {
                        "$gte" => out.lastmod.push((at, false)),
                        "$gt" => out.lastmod.push((at, true)),
                        _ => {}
                    }
                }
            }
        }
        out.jumbo = matches!(filter.get("jumbo"), Some(Bson::Boolean(true)));
        out
    }

    /// The chunks of `table` from index `from` on that could match, when the filter bounds
    /// `lastmod` from below and the table's recent versions (its index on `lastmod`) reach back
    /// that far; `None`: every chunk from `from` on.
    pub fn candidates(&self, table: &RoutingTable, from: usize) -> Option<Vec<usize>> {
        let &((major, minor), strict) = self.lastmod.iter().max()?;
        let mut out = table.changed_since(ChunkVersion::new(major, minor), strict)?;
        out.retain(|&i| i >= from);
        Some(out)
    }

    /// Whether the document of the chunk `info` could match the filter.
    pub fn admits(&self, info: &ChunkInfo) -> bool {
        if self.jumbo && !info.jumbo {
            return false;
        }
        // The chunk document's `lastmod` is Timestamp(major, minor).
        let lastmod = (info.version.major, info.version.minor);
        self.lastmod.iter().all(|(at, strict)| {
            if *strict {
                lastmod > *at
            } else {
                lastmod >= *at
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use bson::{Timestamp, doc};

    use super::*;
    use crate::model::{ChunkVersion, ShardIdx};

    fn chunk(major: u32, minor: u32, jumbo: bool) -> ChunkInfo {
        let mut info = ChunkInfo::new(ShardIdx(0), ChunkVersion::new(major, minor));
        info.jumbo = jumbo;
        info
    }

    #[test]
    fn only_chunks_that_cannot_match_are_left_out() {
        let at = Bson::Timestamp(Timestamp {
            time: 5,
            increment: 2,
        });
        let gte = doc! {"uuid": "x", "lastmod": {"$gte": at.clone()}};
        let pre = ChunkPrefilter::of(Some(&gte));
        assert!(pre.admits(&chunk(5, 2, false)) && pre.admits(&chunk(6, 0, false)));
        assert!(!pre.admits(&chunk(5, 1, false)) && !pre.admits(&chunk(4, 9, false)));
        let gt = doc! {"lastmod": {"$gt": at, "$lt": 3}};
        assert!(!ChunkPrefilter::of(Some(&gt)).admits(&chunk(5, 2, false)));
        let jumbo = ChunkPrefilter::of(Some(&doc! {"jumbo": true}));
        assert!(jumbo.admits(&chunk(1, 0, true)) && !jumbo.admits(&chunk(1, 0, false)));
        // Conditions it does not understand leave everything to the full match.
        for f in [
            doc! {"lastmod": {"$gte": 5}},
            doc! {"$or": [{"jumbo": true}]},
            doc! {"jumbo": {"$eq": true}},
        ] {
            assert!(
                ChunkPrefilter::of(Some(&f)).admits(&chunk(1, 0, false)),
                "{f}"
            );
        }
        assert!(ChunkPrefilter::of(None).admits(&chunk(1, 0, false)));
    }
}
