//! MongoDB's initial split points for a hashed shard key on an empty collection
//! (`InitialSplitPolicy::calculateHashedSplitPoints`).

/// The `n - 1` hashed split points that cut the signed 64-bit space into `n` chunks, sorted.
///
/// `interval = (i64::MAX / n) * 2`; an even `n` puts a point at 0 and at ±k·interval; an odd `n`
/// puts them at ±(interval/2 + k·interval).
pub fn hashed_split_points(n: u32) -> Vec<i64> {
    if n <= 1 {
        return Vec::new();
    }
    let interval = (i64::MAX / i64::from(n)) * 2;
    let mut points = Vec::with_capacity(n as usize - 1);
    let (mut current, pairs) = if n.is_multiple_of(2) {
        points.push(0);
        (interval, (n - 2) / 2)
    } else {
        (interval / 2, (n - 1) / 2)
    };
    for _ in 0..pairs {
        points.push(current);
        points.push(-current);
        current += interval;
    }
    points.sort_unstable();
    points
}
