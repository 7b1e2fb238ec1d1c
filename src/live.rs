//! Reading a live cluster: typed `config.*` documents of every server version (4.4 to 8.0), a
//! mongos-like routing cache refreshed incrementally, and the cluster snapshot the views use.
//!
//! Owns: the document shapes and the refresh logic. Pure — no driver, no I/O; the polling task
//! that sends the allowlisted read commands builds on this.

pub mod change_heat;
pub mod client;
pub mod config;
pub mod heat_counts;
pub mod logs;
pub mod poller;
pub mod record;
pub mod routing_cache;
pub mod sampled_heat;
pub mod snapshot;
