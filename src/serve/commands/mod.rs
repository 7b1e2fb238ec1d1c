//! The command handlers, one file (or folder) per command family: each takes the state and the
//! command document and answers it.
//!
//! May import `write_path`, `catalog`, `state`, `query` and `reply`; not `dispatch` or `net`.
pub mod aggregate;
pub mod analyze;
pub mod collections;
pub mod config_writes;
pub mod create_collection;
pub mod db_stats;
pub mod drain;
pub mod drop_indexes;
pub mod explain;
pub mod find;
pub mod handshake;
pub mod indexes;
pub mod insert;
pub mod metadata;
pub mod move_collection;
pub mod parameters;
pub mod query_analyzer;
pub mod sessions;
pub mod sharding;
pub mod updates;
