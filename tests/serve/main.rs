//! `shardtop serve` in process, spoken to by the Rust driver: each command family's answers, error
//! codes and number types, hostile clients, the config database's shapes against real documents.
//! What belongs here: a test of `serve` through the wire protocol (the soak has a program of its own).
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

mod analyze_shard_key;
mod analyze_shard_key_errors;
mod balancer_status;
mod balancing;
mod change_stream;
mod chunk_counts;
mod chunk_sorts;
mod chunks;
#[path = "../common/mod.rs"]
mod common;
mod config_writes;
mod current_op;
mod data;
mod data_events;
mod driver;
mod drop_indexes;
mod explain;
mod group_limits;
mod hostile;
mod indexes;
mod move_collection;
mod number_types;
mod parameters;
mod rekey;
mod remove_shard;
mod shapes;
mod system_sessions;
mod transactions;
mod txn_lifetime;
mod updates;
mod zones;
