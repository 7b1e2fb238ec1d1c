//! Reading a real cluster into a cluster state: typed `config.*` documents of every server version
//! (4.4 to 8.0), the allowlisted read-only client, a mongos-like routing cache refreshed
//! incrementally, and the poller whose every poll yields a [`Cluster`](crate::cluster::Cluster).
//!
//! Owns: the document shapes, the client, the refresh logic, polling and recording. Builds on
//! `cluster`, `model` and `trace` (recording). May not touch: `sim` (a poll never makes a
//! simulator), the terminal, ratatui.

pub mod balancer_status;
pub mod bounds;
pub mod catalog;
pub mod change_heat;
pub mod change_text;
pub mod client;
pub mod compliance;
pub mod config;
pub mod data_sizes;
pub mod draining;
pub mod handshake;
pub mod heat_counts;
pub mod in_flight;
pub mod inconsistency;
pub mod logs;
pub mod one_poll;
pub mod poller;
pub mod privileges;
pub mod record;
pub mod refusals;
pub mod resharding_progress;
pub mod routing_cache;
pub mod sampled_heat;
pub mod snapshot;
pub mod time_check;
