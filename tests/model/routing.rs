#![allow(clippy::unwrap_used)]
//! The routing table: random sequences of split / merge / move / moveRange / statistics / jumbo
//! changes checked against a plain reference model, chunk-version rules, zones, key patterns,
//! hashed pre-split points and replaced ranges — one file per topic under `routing/`; the shared
//! key kinds and small builders live here.

mod key_patterns;
mod large;
mod presplit;
mod reference;
mod replace;
mod table_rules;
mod zones;

use std::ops::Range;

use proptest::prelude::*;
use shardtop::model::decimal;
use shardtop::model::{
    ChunkInfo, ChunkStats, ChunkVersion, KeyPattern, KeyValue, RoutingError, RoutingTable,
    ShardIdx, ShardKey, ShardTotals, ZoneError, ZoneRanges, hashed_split_points,
};

const SHARDS: u32 = 4;

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Kind {
    Int64,
    Str,
    Compound,
    /// One field holding numbers of every type (equal values of different types) and strings.
    Mixed,
}

impl Kind {
    fn pattern(self) -> KeyPattern {
        let json = match self {
            Kind::Compound => r#"{"a": 1, "b": 1}"#,
            _ => r#"{"k": 1}"#,
        };
        KeyPattern::parse_json(json).unwrap()
    }

    fn key(self) -> BoxedStrategy<ShardKey> {
        let bound = prop::sample::select(vec![KeyValue::MinKey, KeyValue::MaxKey]);
        match self {
            Kind::Int64 => prop_oneof![
                8 => (-40i64..40).prop_map(KeyValue::Int64),
                1 => any::<i64>().prop_map(KeyValue::Int64),
                1 => prop::sample::select(vec![i64::MIN, i64::MAX]).prop_map(KeyValue::Int64),
                1 => bound,
            ]
            .prop_map(ShardKey::single)
            .boxed(),
            Kind::Str => prop_oneof![
                4 => "[a-c]{0,3}".prop_map(KeyValue::string),
                // Shared 15-byte order prefixes: routing must fall back to full comparisons.
                4 => "aaaaaaaaaaaaaaa[a-c]{0,2}".prop_map(KeyValue::string),
                1 => "\\PC{0,20}".prop_map(KeyValue::string),
                1 => bound,
            ]
            .prop_map(ShardKey::single)
            .boxed(),
            Kind::Compound => {
                let first = prop_oneof![
                    6 => (-3i64..3).prop_map(KeyValue::Int64),
                    2 => (-3i32..3).prop_map(KeyValue::Int32),
                    2 => (-6i32..6).prop_map(|h| KeyValue::Double(f64::from(h) / 2.0)),
                    1 => bound.clone(),
                ];
                let second = prop_oneof![
                    4 => "[a-c]{0,2}".prop_map(KeyValue::string),
                    2 => (-3i64..3).prop_map(KeyValue::Int64),
                    1 => bound,
                ];
                (first, second)
                    .prop_map(|(a, b)| ShardKey::from_values(vec![a, b]).unwrap())
                    .boxed()
            }
            Kind::Mixed => prop_oneof![
                2 => (-10i32..10).prop_map(KeyValue::Int32),
                2 => (-10i64..10).prop_map(KeyValue::Int64),
                2 => (-20i32..20).prop_map(|h| KeyValue::Double(f64::from(h) / 2.0)),
                2 => (any::<bool>(), 0u128..200, -1i32..=1)
                    .prop_map(|(n, c, e)| KeyValue::Decimal(decimal::encode(n, c, e))),
                1 => Just(KeyValue::Double(f64::NAN)),
                2 => "[a-c]{0,2}".prop_map(KeyValue::string),
                1 => bound,
            ]
            .prop_map(ShardKey::single)
            .boxed(),
        }
    }
}

fn int(x: i64) -> ShardKey {
    ShardKey::single(KeyValue::Int64(x))
}

fn int_table() -> RoutingTable {
    let p = Kind::Int64.pattern();
    RoutingTable::single(p.global_min(), p.global_max(), ShardIdx(0))
}

fn zeros(n: usize) -> Vec<ChunkStats> {
    vec![ChunkStats::ZERO; n]
}
