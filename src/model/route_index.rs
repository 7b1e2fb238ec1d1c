//! A search index over the routing table's sorted lower-bound prefixes: every 16th prefix, and
//! every 16th of those. A lookup binary-searches the small top level (cache-resident), then counts
//! within one 16-entry block of each lower level; the counts are branch-free, so the loads of a
//! block go out in parallel instead of one dependent cache miss per binary-search step.

/// Entries per block.
const B: usize = 16;

/// Two sampled levels over a sorted slice of prefixes.
#[derive(Clone, Debug, Default)]
pub struct RouteIndex {
    mid: Vec<u128>,
    top: Vec<u128>,
}

fn count_le(block: &[u128], p: u128) -> usize {
    block.iter().map(|&x| usize::from(x <= p)).sum()
}

impl RouteIndex {
    pub fn build(prefixes: &[u128]) -> Self {
        let mid: Vec<u128> = prefixes.iter().step_by(B).copied().collect();
        let top = mid.iter().step_by(B).copied().collect();
        Self { mid, top }
    }

    /// `prefixes.partition_point(|x| x <= p)`: the number of prefixes not above `p`.
    pub fn upper_bound(&self, prefixes: &[u128], p: u128) -> usize {
        let t = self.top.partition_point(|&x| x <= p);
        if t == 0 {
            return 0;
        }
        let m0 = (t - 1) * B;
        let m = m0 + count_le(&self.mid[m0..(m0 + B).min(self.mid.len())], p);
        let l0 = (m - 1) * B;
        l0 + count_le(&prefixes[l0..(l0 + B).min(prefixes.len())], p)
    }
}
