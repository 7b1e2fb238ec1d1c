//! `std::shuffle` with a default-constructed `std::default_random_engine`, exactly as libstdc++
//! (which MongoDB's toolchain builds with) computes it: the engine is `minstd_rand0` seeded with 1,
//! `uniform_int_distribution` takes the two-division path (the engine's range is not a power of
//! two), and the shuffle draws two swap positions from one number when the range allows.
//! MongoDB uses it to order the shards that receive the initial chunks of a hashed collection
//! (8.0.10 `db/s/config/initial_split_policy.cpp`, `getAllNonDrainingShardIdsShuffled`).

/// `std::minstd_rand0`: x ← 16807·x mod (2³¹ − 1).
struct MinstdRand0(u64);

impl MinstdRand0 {
    const MIN: u64 = 1;
    const MAX: u64 = (1 << 31) - 2;

    fn next(&mut self) -> u64 {
        self.0 = self.0 * 16_807 % ((1 << 31) - 1);
        self.0
    }

    /// `uniform_int_distribution<unsigned long>{a, b}(g)` (libstdc++'s downscaling fallback).
    fn uniform(&mut self, a: u64, b: u64) -> u64 {
        let urngrange = Self::MAX - Self::MIN;
        let uerange = b - a + 1;
        let scaling = urngrange / uerange;
        let past = uerange * scaling;
        loop {
            let ret = self.next() - Self::MIN;
            if ret < past {
                return a + ret / scaling;
            }
        }
    }
}

/// Shuffles `items` as `std::shuffle(begin, end, std::default_random_engine{})` does.
pub fn shuffle<T>(items: &mut [T]) {
    let n = items.len() as u64;
    if n < 2 {
        return;
    }
    let mut g = MinstdRand0(1);
    let urngrange = MinstdRand0::MAX - MinstdRand0::MIN;
    if urngrange / n >= n {
        let mut i = 1u64;
        if n.is_multiple_of(2) {
            let j = g.uniform(0, 1);
            items.swap(i as usize, j as usize);
            i += 1;
        }
        while i != n {
            let swap_range = i + 1;
            let x = g.uniform(0, swap_range * (swap_range + 1) - 1);
            let (p1, p2) = (x / (swap_range + 1), x % (swap_range + 1));
            items.swap(i as usize, p1 as usize);
            items.swap(i as usize + 1, p2 as usize);
            i += 2;
        }
        return;
    }
    for i in 1..n {
        let j = g.uniform(0, i);
        items.swap(i as usize, j as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minstd_rand0_matches_the_standard() {
        // [rand.predef]: the 10000th value of a default-constructed minstd_rand0 is 1043618065.
        let mut g = MinstdRand0(1);
        let mut v = 0;
        for _ in 0..10_000 {
            v = g.next();
        }
        assert_eq!(v, 1_043_618_065);
    }

    #[test]
    fn shuffles_as_libstdcxx_does() {
        // Printed by `std::shuffle(v.begin(), v.end(), std::default_random_engine{})` over 0..n,
        // built with g++ 12 (libstdc++) on this machine.
        let expected: [&[u32]; 8] = [
            &[1, 0],
            &[2, 0, 1],
            &[2, 3, 1, 0],
            &[3, 0, 4, 2, 1],
            &[2, 3, 1, 4, 5, 0],
            &[3, 0, 4, 6, 5, 1, 2],
            &[2, 7, 1, 6, 5, 0, 4, 3],
            &[2, 7, 10, 6, 11, 0, 4, 9, 5, 3, 1, 8],
        ];
        for want in expected {
            let mut v: Vec<u32> = (0..want.len() as u32).collect();
            shuffle(&mut v);
            assert_eq!(v, want);
        }
    }

    #[test]
    fn a_shuffle_is_a_permutation_and_the_same_every_time() {
        let mut a: Vec<u32> = (0..7).collect();
        let mut b = a.clone();
        shuffle(&mut a);
        shuffle(&mut b);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..7).collect::<Vec<_>>());
    }
}
