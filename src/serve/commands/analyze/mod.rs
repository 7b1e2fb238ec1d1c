//! `analyzeShardKey`: the command, its request and its read and write distributions.
//!
//! May import `write_path`, `catalog`, `state`, `query` and `reply`.
pub mod analyze_distribution;
pub mod analyze_request;
pub mod analyze_shard_key;
pub mod documents;
