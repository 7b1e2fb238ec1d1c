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
mod real_clusters;
mod real_migrations;
mod real_mongos;
mod real_replay;
mod real_screens;
mod real_stall;
mod real_untracked;
mod real_whatif;
mod record_replay;
mod refresh;
mod same_state;
mod time_invalid;
mod truth;
mod watch_actionlog;
mod watch_catalog;
mod watch_key_visualizer;
mod watch_privileges;
mod watch_reshard;
mod watch_sampled;
mod watch_serve;
mod watch_whatif;
mod whatif;
