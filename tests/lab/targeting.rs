//! The lab targets a query as mongos does (`src/mongo/s/chunk_manager.cpp`,
//! `getShardIdsForRange`: `forEachOverlappingChunk(min, max, isMaxInclusive = true)`; and
//! `shard_key_pattern.cpp`'s `flattenBounds`, which ignores inclusivity): an exclusive upper bound
//! at a chunk boundary still reaches the chunk starting there. On the orders example's data.

use bson::doc;
use shardtop::analyze::operation::{Command, Operation};
use shardtop::lab::input::example;
use shardtop::lab::trial::run::ClusterSpec;
use shardtop::lab::trial::{Arrival, Trial};
use shardtop::model::{KeyPattern, KeyValue, ShardKey};

/// `chunk_manager.cpp`: `{customerId: {$lt: X}}` under `{customerId: 1}`, X the lower bound of a
/// chunk, reaches that chunk too — one chunk more than a range read as exclusive would.
#[test]
fn chunk_manager_cpp_an_exclusive_upper_bound_reaches_the_chunk_starting_at_it() {
    let key = KeyPattern::parse_json(r#"{"customerId": 1}"#).unwrap();
    let spec = ClusterSpec::new(3, 1, shardtop::cluster::ServerVersion::DEFAULT);
    let arrival = Arrival {
        from_empty: false,
        initial_docs: 20_000,
        rate_per_sec: 1000.0,
    };
    let mut trial = Trial::new(spec, arrival, std::slice::from_ref(&key), &[]).unwrap();
    let mut docs = example::orders_n(example::SEED, 20_000).map(|d| {
        let n = bson::to_vec(&d).unwrap().len() as u64;
        Ok::<_, ()>((d, n))
    });
    trial.run_to_end(&mut docs).unwrap();
    let table = &trial.candidates[0].sim.cluster.collections[0].table;
    assert!(table.len() > 3, "{} chunks", table.len());
    // The third chunk's lower bound, a customerId.
    let k = 2;
    let bound = table.chunk(k).min.clone();
    let Some(KeyValue::Int32(x)) = bound.get(0).cloned() else {
        panic!("{bound:?}");
    };
    assert_eq!(table.route(&ShardKey::single(KeyValue::Int32(x))), k);
    let op = Operation {
        filter: doc! {"customerId": {"$lt": x}},
        ..Operation::new(Command::Find, 1)
    };
    let report = trial.finish(&[op], &[]);
    let q = &report.candidates[0].queries[0];
    // [MinKey-ward numbers .. x]: the chunks up to and including the one starting at x. Numbers
    // start in the first chunk (MinKey holds them), so that is k + 1 chunks.
    assert_eq!(q.chunks, k + 1, "{q:?}");
}
