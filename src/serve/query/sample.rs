//! `$sample: {size: N}` over a collection's documents: at most N of them, in a random order,
//! with MongoDB's checks of the stage (8.0 `src/mongo/db/pipeline/document_source_sample.cpp`:
//! 28745 not an object, 28746 size not a number, 28747 negative, 28748 an unknown option, 28749
//! no size). Simplified: the draw is seeded by the collection's size and N, so the same
//! collection gives the same sample (MongoDB's differs each time).

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::sim::rng::Rng;

fn size_of(spec: &Bson) -> Result<u64, MongoError> {
    let Bson::Document(d) = spec else {
        return Err(MongoError::location(
            28745,
            "Location28745",
            "the $sample stage specification must be an object",
        ));
    };
    let mut size = None;
    for (k, v) in d {
        if k != "size" {
            return Err(MongoError::location(
                28748,
                "Location28748",
                format!("unrecognized option to $sample: {k}"),
            ));
        }
        let n = match v {
            Bson::Int32(n) => i64::from(*n),
            Bson::Int64(n) => *n,
            Bson::Double(x) => *x as i64,
            Bson::Decimal128(_) => 0,
            _ => {
                return Err(MongoError::location(
                    28746,
                    "Location28746",
                    "size argument to $sample must be a number",
                ));
            }
        };
        if n < 0 {
            return Err(MongoError::location(
                28747,
                "Location28747",
                "size argument to $sample must not be negative",
            ));
        }
        size = Some(n as u64);
    }
    size.ok_or_else(|| {
        MongoError::location(28749, "Location28749", "$sample stage must specify a size")
    })
}

/// The stage over `docs`.
pub(crate) fn sample(spec: &Bson, mut docs: Vec<Document>) -> Result<Vec<Document>, MongoError> {
    let size = size_of(spec)?;
    let n = docs.len();
    let take = usize::try_from(size).unwrap_or(usize::MAX).min(n);
    let mut rng = Rng::new((n as u64).wrapping_mul(0x9e37_79b9) ^ size);
    for i in 0..take {
        let j = rng.range_u64(i as u64, n as u64 - 1) as usize;
        docs.swap(i, j);
    }
    docs.truncate(take);
    Ok(docs)
}
