//! The terminal UI: state and reducer (`app`), key bindings (`keymap`), colours (`theme`), and
//! one file per pane under `panes`. Rendering is a pure function of [`App`]; nothing here does
//! I/O or talks to a source except through the messages of [`crate::source`].

pub mod action;
pub mod app;
pub mod keymap;
pub mod panes;
pub mod theme;

pub use action::Action;
pub use app::App;
pub use panes::render;
