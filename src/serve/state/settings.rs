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
}
