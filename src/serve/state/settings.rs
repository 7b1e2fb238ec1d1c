//! `config.settings` documents the simulator does not read: data only; `commands::config_writes`
//! writes them and `catalog::config_db` lists them.
//!
//! May import nothing of `serve` above `state`.

use std::collections::BTreeMap;

use bson::Document;

/// `config.settings` documents the simulator does not read, by `_id`.
#[derive(Debug, Default)]
pub struct OtherSettings {
    pub docs: BTreeMap<String, Document>,
    /// The `_id`s of the modelled settings documents written (they exist from then on).
    pub written: std::collections::BTreeSet<String>,
    /// The balancer document's `activeWindow` as written (`{start, stop}`, "hh:mm" strings),
    /// read back as is; the simulator holds it as minutes of its own clock.
    pub active_window: Option<Document>,
}

/// The minute of the (UTC) day at which `serve` started: its clock's zero, so that a balancing
/// window in wall-clock time becomes one in the simulator's minutes (and back).
pub fn wall_minute_at_start(started_secs: u64) -> u32 {
    ((started_secs % 86_400) / 60) as u32
}
