//! The documents both halves of `analyzeShardKey` read: a fixed-seed sample of the kept documents
//! and the error for a shard key value holding an array. Imports neither half.

use crate::cluster::MongoError;
use crate::model::KeyPattern;

/// `n` of `items` (all of them when `n` reaches their number), kept in their order: a
/// pseudo-random choice of a fixed seed (Floyd's), where MongoDB draws at random.
pub(crate) fn sample<T>(items: &[T], n: usize) -> Vec<&T> {
    let len = items.len();
    if n >= len {
        return items.iter().collect();
    }
    let mut rng = crate::sim::rng::Rng::new(SAMPLE_SEED);
    let mut chosen = std::collections::BTreeSet::new();
    for j in (len - n)..len {
        let t = usize::try_from(rng.range_u64(0, j as u64)).unwrap_or(j);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    chosen.into_iter().map(|i| &items[i]).collect()
}

/// The seed of [`sample`].
const SAMPLE_SEED: u64 = 0x0a5c_5eed;

/// `uassertShardKeyValueNotContainArrays` (8.0 `db/s/analyze_shard_key_util.cpp`).
pub(crate) fn array_field(key: &KeyPattern, why: &str) -> MongoError {
    let field = key
        .fields()
        .iter()
        .find(|f| why.contains(&format!("'{}'", f.path)))
        .map_or_else(String::new, |f| f.path.to_string());
    MongoError::bad_value(format!("The shard key contains an array field '{field}'"))
}
