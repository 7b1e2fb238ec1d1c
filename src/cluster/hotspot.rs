//! The hotspot rule: when one shard (or one chunk) takes so much more than its fair share of a
//! collection's recent writes that the screen may call it `HOT`. Every source (simulator, replay,
//! live cluster, lab) and every marker (the shards pane's `◀ HOT`, the key space's `▲`) goes
//! through [`hotspot`].
//!
//! Owns: the rule and its numbers. May not touch: the write windows themselves (`window`), the
//! views, I/O or the clock; it is a pure function of counts.

/// How far back "recent" writes go: the last 60 seconds of the source's clock (virtual time for
/// the simulator and replays, wall-clock time of the polls for a live cluster).
pub const WINDOW_MS: u64 = 60_000;

/// The fewest writes in the window for a share to mean anything.
pub const MIN_WRITES: u64 = 100;

/// The margin, as a share of all writes: the hotspot's share is at least this far above its fair
/// share (and at least half its fair share again), and this far above the runner-up's share.
pub const MARGIN: f64 = 0.10;

/// A hotspot: which one, and its share of the window's writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hotspot<K> {
    pub key: K,
    pub share: f64,
}

/// The share above which one of `eligible` candidates is hot, before the runner-up test:
/// `fair + max(MARGIN, fair / 2)` with `fair = 1 / eligible`.
pub fn threshold(eligible: usize) -> f64 {
    let fair = 1.0 / eligible.max(1) as f64;
    fair + MARGIN.max(fair / 2.0)
}

/// The hotspot among `counts` (candidate, writes in the window), if there is one.
///
/// The rule: with `total` the writes in the window, `n` the candidates that can take the
/// collection's writes (`eligible` — for shards, those owning at least one of its chunks; for
/// chunks, every chunk — or more if more of them took writes) and `fair = 1 / n`, the candidate
/// with the most writes is hot when all of these hold:
///
/// 1. `total >= MIN_WRITES` (100): a share of a handful of writes means nothing;
/// 2. `n >= 2`: a collection on one shard has no fair share to exceed;
/// 3. its share `>= fair + max(MARGIN, fair / 2)`: 10 points above its fair share and at least
///    1.5 times it (two shards: 75%; three: 50%; four: 37.5%; ten: 20%; forty: 12.5%), which an
///    even split (34/33/33) never reaches;
/// 4. its share `>= runner-up's + MARGIN`: two shards at 35% each are two busy shards, not one
///    hotspot — a tie is never hot.
///
/// With no writes in the window there is no hotspot, so `HOT` fades when writes stop.
pub fn hotspot<K: Copy>(
    counts: impl IntoIterator<Item = (K, u64)>,
    eligible: usize,
) -> Option<Hotspot<K>> {
    let (mut total, mut written) = (0u64, 0usize);
    let mut top: Option<(K, u64)> = None;
    let mut second = 0u64;
    for (k, n) in counts {
        if n == 0 {
            continue;
        }
        total += n;
        written += 1;
        match top {
            Some((_, t)) if n <= t => second = second.max(n),
            _ => {
                second = top.map_or(0, |(_, t)| t);
                top = Some((k, n));
            }
        }
    }
    let (key, n) = top?;
    let candidates = eligible.max(written);
    if total < MIN_WRITES || candidates < 2 {
        return None;
    }
    let share = n as f64 / total as f64;
    let runner_up = second as f64 / total as f64;
    (share >= threshold(candidates) && share - runner_up >= MARGIN)
        .then_some(Hotspot { key, share })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn shares(counts: &[u64]) -> Option<Hotspot<usize>> {
        hotspot(counts.iter().copied().enumerate(), counts.len())
    }

    #[test]
    fn even_splits_ties_and_few_writes_are_not_hot() {
        assert_eq!(shares(&[34, 33, 34]), None, "hashed at 34/33/34%");
        assert_eq!(shares(&[340, 330, 330]), None);
        assert_eq!(shares(&[35, 35, 10, 10, 10]), None, "a 35/35 tie");
        // 13% on 40 shards, for a collection that lives on 8 of them: its fair share is 12.5%.
        let eight: Vec<(usize, u64)> = (0..8).map(|i| (i * 5, 125 + i as u64 % 2 * 10)).collect();
        assert_eq!(hotspot(eight, 8), None, "13% of 40 shards, on 8 of them");
        let mut forty = vec![87u64; 40];
        forty[7] = 520;
        assert_eq!(
            shares(&forty).map(|h| h.key),
            Some(7),
            "13% of writes over all 40 shards is five times its fair share"
        );
        let few = [8u64, 1, 1];
        assert_eq!(shares(&few), None, "ten writes say nothing");
        assert_eq!(
            shares(&[1000]),
            None,
            "one shard has no fair share to exceed"
        );
        assert_eq!(shares(&[0, 0, 0]), None, "no writes");
    }

    #[test]
    fn a_dominant_shard_is_hot() {
        assert_eq!(shares(&[0, 1000, 0]), Some(Hotspot { key: 1, share: 1.0 }));
        assert_eq!(shares(&[760, 240]).map(|h| h.key), Some(0));
        assert_eq!(shares(&[740, 260]), None, "two shards: 75% is the line");
    }

    #[test]
    fn the_fair_share_counts_the_shards_that_can_take_writes() {
        // A collection on 3 of 10 shards: its fair share is a third, not a tenth.
        let counts = [(0usize, 40u64), (1, 30), (2, 30)];
        assert_eq!(hotspot(counts, 3), None);
        // Writes on more shards than said eligible (a chunk moved in the window) count them too.
        assert_eq!(
            hotspot([(0usize, 60u64), (1, 20), (2, 20)], 1),
            Some(Hotspot { key: 0, share: 0.6 })
        );
    }

    proptest! {
        /// Never hot within the margin of the fair share.
        #[test]
        fn never_hot_within_the_margin(counts in prop::collection::vec(0u64..10_000, 1..60)) {
            let total: u64 = counts.iter().sum();
            let max = counts.iter().copied().max().unwrap_or(0);
            let fair = 1.0 / counts.len() as f64;
            if total > 0 && (max as f64 / total as f64) < fair + MARGIN {
                prop_assert_eq!(shares(&counts), None);
            }
        }

        /// A clearly dominant shard (90% of enough writes) is hot, whatever the others do.
        #[test]
        fn a_clearly_dominant_shard_is_hot(
            rest in prop::collection::vec(0u64..100, 1..40),
            at in 0usize..40,
            scale in 1u64..50,
        ) {
            let others: u64 = rest.iter().sum::<u64>() * scale;
            let mut counts: Vec<u64> = rest.iter().map(|n| n * scale).collect();
            let at = at % (counts.len() + 1);
            let top = (others * 9).max(MIN_WRITES);
            counts.insert(at, top);
            prop_assert_eq!(shares(&counts).map(|h| h.key), Some(at));
        }

        /// Two shards with the same count are never hot, whatever else.
        #[test]
        fn ties_are_never_hot(
            rest in prop::collection::vec(0u64..10_000, 0..40),
            tie in 0u64..100_000,
        ) {
            let mut counts = vec![tie, tie];
            counts.extend(rest.into_iter().map(|n| n.min(tie)));
            prop_assert_eq!(shares(&counts), None);
        }

        /// Too few writes are never hot.
        #[test]
        fn too_few_writes_are_never_hot(counts in prop::collection::vec(0u64..5, 1..19)) {
            prop_assert_eq!(shares(&counts), None);
        }
    }
}
