//! A collection whose `config.chunks` do not tile its key space — a gap, an overlap, no chunk
//! from MinKey or to MaxKey — named as `checkMetadataConsistency` names it, and a table to show
//! it by all the same (the chunks sorted by lower bound, each shown up to the next one's).
//!
//! Owns: the check of one collection's chunk ranges. May not touch: the other collections (one
//! inconsistent collection never hides the rest), the cluster.

use crate::cluster::Inconsistency;
use crate::model::shell_text;
use crate::model::{ChunkInfo, KeyPattern, ShardKey};

/// A chunk's bounds in mongosh notation: `[{ x: MinKey }, { x: 0 })`.
pub(crate) fn range(pattern: &KeyPattern, min: &ShardKey, max: &ShardKey) -> String {
    format!(
        "[{}, {})",
        shell_text::document(&pattern.bound_to_document(min)),
        shell_text::document(&pattern.bound_to_document(max))
    )
}

/// A collection `config.collections` lists with no chunk in `config.chunks`: it has no routing
/// table to show, so it is left out and said so, in `checkMetadataConsistency`'s words
/// (`MissingRoutingTable`, found by `src/mongo/db/s/metadata_consistency_util.cpp`; its
/// description in mongodb/docs `reference/inconsistency-type/MissingRoutingTable.txt`: "There is
/// a sharded collection without routing table"), while the rest of the cluster is shown.
pub fn say_missing(refused: &mut super::refusals::Refusals, ns: &str) {
    let text = format!(
        "{ns}: INCONSISTENT: MissingRoutingTable — there is a sharded collection without routing \
         table (config.collections lists it, config.chunks has no chunk of it); left out"
    );
    refused.say(crate::cluster::privileges::Feeds::Shards, text);
}

/// The inconsistencies of chunks `(min, max, info)`, checked as the server checks them: sorted
/// by lower bound, each chunk's upper bound against the next one's lower bound (a gap when
/// below, an overlap when above), then the first lower bound against MinKey and the last upper
/// bound against MaxKey (`src/mongo/db/s/metadata_consistency_util.cpp`,
/// `checkChunksInconsistencies`). Also returns the chunks as a table can hold them: sorted, one
/// per lower bound, the first starting at MinKey.
pub fn check(
    ns: &str,
    pattern: &KeyPattern,
    mut chunks: Vec<(ShardKey, ShardKey, ChunkInfo)>,
) -> (Vec<Inconsistency>, Vec<(ShardKey, ChunkInfo)>) {
    chunks.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let mut found = Vec::new();
    for pair in chunks.windows(2) {
        let (prev, next) = (&pair[0], &pair[1]);
        let (kind, what) = match prev.1.cmp(&next.0) {
            std::cmp::Ordering::Less => ("RoutingTableRangeGap", "a gap between"),
            std::cmp::Ordering::Greater => ("RoutingTableRangeOverlap", "overlapping chunks"),
            std::cmp::Ordering::Equal => continue,
        };
        found.push(Inconsistency {
            kind: kind.into(),
            description: format!(
                "{ns}: {what} {} and {}",
                range(pattern, &prev.0, &prev.1),
                range(pattern, &next.0, &next.1)
            ),
        });
    }
    let (global_min, global_max) = (pattern.global_min(), pattern.global_max());
    if let Some(first) = chunks.first().filter(|c| c.0 != global_min) {
        found.push(Inconsistency {
            kind: "RoutingTableMissingMinKey".into(),
            description: format!(
                "{ns}: the first chunk starts at {}, not at {}",
                shell_text::document(&pattern.bound_to_document(&first.0)),
                shell_text::document(&pattern.bound_to_document(&global_min))
            ),
        });
    }
    if let Some(last) = chunks.last().filter(|c| c.1 != global_max) {
        found.push(Inconsistency {
            kind: "RoutingTableMissingMaxKey".into(),
            description: format!(
                "{ns}: the last chunk ends at {}, not at {}",
                shell_text::document(&pattern.bound_to_document(&last.1)),
                shell_text::document(&pattern.bound_to_document(&global_max))
            ),
        });
    }
    let mut rows: Vec<(ShardKey, ChunkInfo)> = Vec::with_capacity(chunks.len());
    for (min, _, info) in chunks {
        if rows.last().is_none_or(|(m, _)| *m != min) && min < global_max {
            rows.push((min, info));
        }
    }
    if let Some(first) = rows.first_mut() {
        first.0 = global_min;
    }
    (found, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChunkVersion, KeyValue, ShardIdx};

    fn chunk(min: KeyValue, max: KeyValue) -> (ShardKey, ShardKey, ChunkInfo) {
        let info = ChunkInfo::new(ShardIdx(0), ChunkVersion::new(1, 0));
        (ShardKey::single(min), ShardKey::single(max), info)
    }

    #[test]
    fn overlaps_gaps_and_missing_ends_are_named_as_the_server_names_them() {
        let pattern = KeyPattern::parse(&bson::doc! {"x": 1}).expect("a pattern");
        // The 7.0 docs' RoutingTableRangeOverlap example: [MinKey, 0) and [-10, MaxKey).
        let (found, rows) = check(
            "test.authors",
            &pattern,
            vec![
                chunk(KeyValue::Int32(-10), KeyValue::MaxKey),
                chunk(KeyValue::MinKey, KeyValue::Int32(0)),
            ],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, "RoutingTableRangeOverlap");
        assert_eq!(
            found[0].description,
            "test.authors: overlapping chunks [{ x: MinKey }, { x: 0 }) and [{ x: -10 }, { x: MaxKey })"
        );
        assert_eq!(rows.len(), 2);
        let (found, _) = check(
            "t.c",
            &pattern,
            vec![
                chunk(KeyValue::Int32(5), KeyValue::Int32(10)),
                chunk(KeyValue::Int32(20), KeyValue::Int32(30)),
            ],
        );
        let kinds: Vec<&str> = found.iter().map(|i| i.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "RoutingTableRangeGap",
                "RoutingTableMissingMinKey",
                "RoutingTableMissingMaxKey"
            ]
        );
        assert!(!found.iter().any(|i| i.description.contains("ShardKey")));
        let (found, _) = check(
            "t.c",
            &pattern,
            vec![
                chunk(KeyValue::MinKey, KeyValue::Int32(0)),
                chunk(KeyValue::Int32(0), KeyValue::MaxKey),
            ],
        );
        assert!(found.is_empty());
    }
}
