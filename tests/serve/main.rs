//! `shardtop serve` in process, spoken to by the Rust driver: each command family's answers, error
//! codes and number types, hostile clients, the config database's shapes against real documents.
//! What belongs here: a test of `serve` through the wire protocol, and the soak of the real `serve`
//! (`all_at_once`: many clients at once; its 45 s run beside the other tests of this program).
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

// The soak: first in name order, so libtest starts it first and its 45 s run beside the others.
mod all_at_once;
mod analyze_shard_key;
mod analyze_shard_key_errors;
#[path = "queries/array_paths.rs"]
mod array_paths;
#[path = "admin/balancer_status.rs"]
mod balancer_status;
#[path = "admin/balancing.rs"]
mod balancing;
mod change_stream;
mod chunk_counts;
#[path = "queries/chunk_sorts.rs"]
mod chunk_sorts;
mod chunks;
mod closed_stderr;
mod collections;
#[path = "../common/mod.rs"]
mod common;
#[path = "admin/config_writes.rs"]
mod config_writes;
mod current_op;
#[path = "queries/data.rs"]
mod data;
mod data_events;
mod driver;
mod drop_indexes;
#[path = "queries/explain.rs"]
mod explain;
#[path = "queries/group_limits.rs"]
mod group_limits;
mod hostile;
mod index_conflicts;
mod indexes;
#[path = "admin/move_collection.rs"]
mod move_collection;
mod nothing_hangs;
mod number_types;
#[path = "admin/parameters.rs"]
mod parameters;
#[path = "queries/pipeline_stages.rs"]
mod pipeline_stages;
#[path = "admin/rekey.rs"]
mod rekey;
#[path = "admin/remove_shard.rs"]
mod remove_shard;
mod server_answers;
mod shapes;
mod system_sessions;
mod transactions;
mod txn_lifetime;
#[path = "queries/updates.rs"]
mod updates;
#[path = "admin/zones.rs"]
mod zones;
