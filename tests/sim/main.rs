//! The simulator and traces: MongoDB's sharding rules over virtual time (scenarios, balancer
//! rounds, drains, zones, defragmentation, resharding, moveCollection, limits, property tests) and
//! the trace format (writing, reading, damaged files, the fast reader, the schema).
//! What belongs here: a test of `sim` or `trace` driven in process, without a server or terminal.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

mod auto_merger;
mod auto_split_vector;
mod balancer_order;
mod collection_balancing;
mod collection_drop;
mod defragmentation;
mod diagnosis;
mod docs;
mod drain;
mod explain;
mod heatmap;
mod hotspot;
mod limits;
mod move_collection;
mod new_database;
mod props;
mod range_deletion_wait;
mod reshard;
mod reshard_distribution;
mod rules;
mod scenarios;
#[path = "trace/trace.rs"]
mod trace;
#[path = "trace/trace_damage.rs"]
mod trace_damage;
#[path = "trace/trace_fast.rs"]
mod trace_fast;
#[path = "trace/trace_keyframes.rs"]
mod trace_keyframes;
#[path = "trace/trace_schema.rs"]
mod trace_schema;
mod zones;
mod zones_initial;
