//! The config database generated from the simulator's state (`config.shards`, `chunks`,
//! `collections`…), its stable identifiers, and the fast paths over `config.chunks` (counts,
//! pipelines and lazy reads that never build a million documents).
//!
//! May import `state`, `query` and `reply`; not the command handlers or the write path.
pub mod blocking_sort;
pub mod chunk_counts;
pub mod chunk_docs;
pub mod chunk_pipeline;
pub mod chunk_scope;
pub mod chunks_cursor;
pub mod config_db;
pub mod ids;
pub mod index_conflicts;
pub mod indexes;
pub mod raw_chunks;
pub mod reads;
pub mod sampled_queries;
pub mod system_sessions;
