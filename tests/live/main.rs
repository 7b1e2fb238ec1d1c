//! The live floor: typed config documents of real clusters, the routing cache's refresh, and
//! `watch`'s reads (action log, key visualizer, privileges, resharding, sampled queries) against
//! `serve`. What belongs here: a test of `live` or of `watch` against a server in process.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

mod anonymize_markers;
mod capture;
mod capture_anonymize;
mod capture_script;
#[path = "../common/mod.rs"]
mod common;
mod config;
mod conformance;
mod helpers;
mod hostile;
mod hostile_mongos;
mod poll_cost;
mod printable;
mod quiet_cluster;
#[path = "real/real_clusters.rs"]
mod real_clusters;
#[path = "real/real_migrations.rs"]
mod real_migrations;
#[path = "real/real_mongos.rs"]
mod real_mongos;
#[path = "real/real_replay.rs"]
mod real_replay;
mod real_screens;
#[path = "real/real_stall.rs"]
mod real_stall;
#[path = "real/real_untracked.rs"]
mod real_untracked;
#[path = "real/real_whatif.rs"]
mod real_whatif;
mod record_replay;
mod refresh;
mod same_state;
mod time_invalid;
mod truth;
#[path = "watch/watch_actionlog.rs"]
mod watch_actionlog;
#[path = "watch/watch_catalog.rs"]
mod watch_catalog;
#[path = "watch/watch_key_visualizer.rs"]
mod watch_key_visualizer;
#[path = "watch/watch_privileges.rs"]
mod watch_privileges;
#[path = "watch/watch_reshard.rs"]
mod watch_reshard;
#[path = "watch/watch_sampled.rs"]
mod watch_sampled;
#[path = "watch/watch_serve.rs"]
mod watch_serve;
#[path = "watch/watch_whatif.rs"]
mod watch_whatif;
mod whatif;
