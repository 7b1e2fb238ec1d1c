//! End to end: the real binary in a terminal (tmux), keys typed as a user types them, the terminal
//! restored after a quit, a crash or a signal. What belongs here: a test of the TUI through tmux.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

#[path = "../common/mod.rs"]
mod common;
mod detail;
mod diagnosis;
mod feedback;
mod first_hour;
mod hostile;
#[allow(dead_code)] // the modes the e2e tests do not use
#[path = "../live/hostile_mongos.rs"]
mod hostile_mongos;
mod hot_default;
mod keys;
mod lab;
mod palette;
mod settings;
mod tmux;
mod whatif;
