//! Replacing ranges (a live source's refresh), owned sizes, and the version log over a long history.

use super::*;

/// A table of `n` chunks at 0, 100, 200, … (the first at MinKey) on shards `i % 3`, versions
/// (1, i).
fn hundreds(n: usize) -> RoutingTable {
    let p = Kind::Int64.pattern();
    let chunks = (0..n)
        .map(|i| {
            let min = if i == 0 {
                p.global_min()
            } else {
                int(i as i64 * 100)
            };
            let info = ChunkInfo::new(ShardIdx((i % 3) as u32), ChunkVersion::new(1, i as u32));
            (min, info)
        })
        .collect();
    RoutingTable::from_chunks(chunks, p.global_max()).unwrap()
}

proptest! {
    /// Replacing ranges with new chunks (a live source's refresh) gives the table a naive
    /// rebuild gives, with its invariants.
    #[test]
    fn replaced_ranges_give_the_rebuilt_table(
        n in 2usize..40,
        cuts in proptest::collection::vec((0usize..40, 1usize..4, 1usize..4, 0u32..3), 0..6),
    ) {
        let mut t = hundreds(n);
        let mut expected: Vec<(ShardKey, ChunkInfo)> =
            t.iter().map(|c| (c.min.clone(), *c.info)).collect();
        let mut patches = Vec::new();
        let mut taken = vec![false; n];
        let mut minor = 0;
        for (start, len, pieces, shard) in cuts {
            let range = start % n..(start % n + len).min(n);
            if range.clone().any(|k| taken[k]) {
                continue;
            }
            range.clone().for_each(|k| taken[k] = true);
            let first = t.chunk(range.start).min.clone();
            let base = range.start as i64 * 100;
            let chunks: Vec<(ShardKey, ChunkInfo)> = (0..pieces)
                .map(|k| {
                    minor += 1;
                    let min = if k == 0 { first.clone() } else { int(base + k as i64) };
                    (min, ChunkInfo::new(ShardIdx(shard), ChunkVersion::new(2, minor)))
                })
                .collect();
            patches.push(shardtop::model::RangePatch { range, chunks });
        }
        let mut sorted = patches.clone();
        sorted.sort_by_key(|p| std::cmp::Reverse(p.range.start));
        for p in &sorted {
            expected.splice(p.range.clone(), p.chunks.clone());
        }
        t.replace_ranges(patches).unwrap();
        prop_assert!(t.check_invariants().is_ok(), "{:?}", t.check_invariants());
        let got: Vec<(ShardKey, ChunkInfo)> =
            t.iter().map(|c| (c.min.clone(), *c.info)).collect();
        prop_assert_eq!(got, expected);
    }

    /// Each shard's owned totals are spread over its chunks: they add up, no two chunks of a
    /// shard differ by more than one.
    #[test]
    fn owned_sizes_spread_evenly(n in 1usize..50, docs in 0u64..1000, bytes in 0u64..100_000) {
        let mut t = hundreds(n);
        let owned = [(ShardIdx(0), ChunkStats::new(docs, bytes, 7)), (ShardIdx(1), ChunkStats::new(bytes, docs, 0))];
        t.spread_owned(&owned);
        prop_assert!(t.check_invariants().is_ok(), "{:?}", t.check_invariants());
        for (s, want) in [(0, (docs, bytes)), (1, (bytes, docs)), (2, (0, 0))] {
            let mine: Vec<ChunkStats> = t.iter().filter(|c| c.info.shard == ShardIdx(s)).map(|c| c.info.stats).collect();
            if mine.is_empty() {
                continue;
            }
            let sum = mine.iter().fold((0, 0), |a, c| (a.0 + c.docs, a.1 + c.bytes));
            prop_assert_eq!(sum, want);
            prop_assert_eq!(t.shard_totals(ShardIdx(s)).stats, ChunkStats::new(want.0, want.1, 0));
            let most = mine.iter().map(|c| c.docs).max().unwrap();
            let least = mine.iter().map(|c| c.docs).min().unwrap();
            prop_assert!(most - least <= 1);
        }
    }
}

#[test]
fn replacements_that_do_not_fit_are_refused() {
    let mut t = hundreds(5);
    let info = ChunkInfo::new(ShardIdx(0), ChunkVersion::new(9, 0));
    let bad = |range: Range<usize>, mins: Vec<ShardKey>| shardtop::model::RangePatch {
        range,
        chunks: mins.into_iter().map(|m| (m, info)).collect(),
    };
    // Not starting at the replaced chunk's lower bound.
    assert!(t.replace_ranges(vec![bad(1..2, vec![int(150)])]).is_err());
    // Past the replaced range.
    assert!(
        t.replace_ranges(vec![bad(1..2, vec![int(100), int(250)])])
            .is_err()
    );
    // Overlapping ranges.
    assert!(
        t.replace_ranges(vec![bad(1..3, vec![int(100)]), bad(2..4, vec![int(200)])])
            .is_err()
    );
    assert!(t.check_invariants().is_ok() && t.len() == 5);
}

#[test]
fn the_version_log_answers_recent_questions_after_a_long_history() {
    let mut t = int_table();
    for k in 1..=10_000i64 {
        let last = t.len() - 1;
        t.split(last, &[int(k)], &zeros(2)).unwrap();
    }
    t.check_invariants().unwrap();
    let recent = t.chunk(t.len() - 5).info.version;
    let scan: Vec<usize> = t
        .iter()
        .filter(|c| c.info.version >= recent)
        .map(|c| c.index)
        .collect();
    assert_eq!(t.changed_since(recent, false), Some(scan));
    let oldest = t.chunk(1).info.version;
    assert_eq!(t.changed_since(oldest, false), None, "older than the log");
}
