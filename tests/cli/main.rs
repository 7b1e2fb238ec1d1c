//! The real binary run as a command: help and manual page, `sim`, `hash`, `lab`, `serve`, exports,
//! `demo.tape`, every command shown in README.md and docs/*.md (`docs_examples`), and the fuzz
//! targets' saved regressions. What belongs here: a test that runs the
//! binary without a terminal (tmux only for `s`, saving the screen).
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

mod bounds;
#[path = "../common/mod.rs"]
mod common;
mod demo_tape;
mod docs_examples;
mod explain;
mod export;
mod export_png;
mod files;
mod first_words;
mod fuzz_regressions;
mod hash;
mod help;
mod lab;
mod lab_ranges;
mod malformed_reply;
mod process;
mod serve;
mod sim;
mod tui;
mod whatif;
