//! The TUI as a pure function of its state: screens as insta snapshots (`snapshots/`), the key
//! visualizer, the history, the lab's side-by-side screen, settings, and the event loop driven
//! through a test backend. What belongs here: a test of `ui`, `view` or `runtime` with no terminal.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

#[path = "../common/mod.rs"]
mod common;
mod cuts;
mod detail;
mod events;
mod heatmap;
mod help;
mod history;
mod hot;
mod lab;
mod live_features;
mod markers;
mod navigation;
mod osc;
mod palette;
mod panes;
mod runtime;
mod settings;
mod sizes;
mod time_travel;
mod truth;
mod whatif;
