//! The terminal UI: state and reducer (`app`), key bindings (`keymap`), colours (`theme`), and
//! one file per pane under `panes`. Rendering is a pure function of [`App`]; nothing here does
//! I/O or talks to a source except through the messages of [`crate::source`].
//!
//! Owns: what the user sees and how keys change it. Reads `view` (and `units` for sizes); may not
//! touch `sim`, `live`, `trace`, tokio or the terminal itself (the runtime owns it).

pub mod action;
pub mod app;
pub mod keymap;
pub mod panes;
pub mod theme;

pub use action::Action;
pub use app::App;
pub use panes::render;
