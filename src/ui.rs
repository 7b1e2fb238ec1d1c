//! The terminal UI: state and reducer (`app`; what the keys do now in `input_mode`; which screen
//! is shown in `screen`; the key visualizer's, the history's and the lab's parts in their
//! `app_*` files; `update` returns the [`Effects`] it wants), key bindings (`keymap`, `keys`),
//! colours (`theme`, `palette`), the settings a configuration file changes (`Settings`), the
//! layout (`layout`) and one file per pane under `panes`. Rendering is a pure function of
//! [`App`]; nothing here does I/O or talks to a source except through the messages of
//! [`crate::source`].
//!
//! Owns: what the user sees and how keys change it. Reads `view` (and `units` for sizes); may not
//! touch `sim`, `live`, `trace`, tokio or the terminal itself (the runtime owns it).

pub mod action;
pub mod app;
pub mod app_detail;
pub mod app_focus;
pub mod app_help;
pub mod app_history;
pub mod app_key_visualizer;
pub mod app_lab;
pub mod app_mouse;
pub mod app_whatif;
pub mod command_palette;
pub mod export;
pub mod export_png;
pub mod help_keys;
pub mod input_mode;
pub mod keymap;
pub mod keys;
pub mod layout;
pub mod line_editor;
pub mod palette;
pub mod panes;
pub mod screen;
pub mod shard_order;
pub mod tab_progress;
pub mod theme;

pub use action::Action;
pub use app::{App, Effects};
pub use input_mode::InputMode;
pub use panes::render;

/// What a configuration file and the command line change in the TUI.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub theme: theme::Theme,
    pub keys: keymap::KeyMap,
    /// Frames per second at most.
    pub fps: u32,
    /// Drains' and reshardings' progress sent to the terminal's tab (OSC 9;4).
    pub progress: bool,
    /// No theme was set: the runtime's caller picks dark or light from the terminal's
    /// background before the first frame.
    pub theme_auto: bool,
}

/// The frame rate when none is configured.
pub const DEFAULT_FPS: u32 = 30;

impl Settings {
    /// The defaults, with colours on or off.
    pub fn new(colors: bool) -> Self {
        Self {
            theme: theme::Theme::new(colors),
            keys: keymap::KeyMap::default(),
            fps: DEFAULT_FPS,
            progress: true,
            theme_auto: false,
        }
    }
}
