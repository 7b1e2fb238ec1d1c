//! A capped log collection (`config.changelog`, `config.actionlog`): the newest entries kept.
//! Data only; `write_path::changelog` writes the entries from the simulator's events.
//!
//! May import nothing of `serve` above `state`.

use std::collections::VecDeque;

use bson::{Document, doc};

pub const KEEP: usize = 10_000;

/// A capped log collection: the entries kept so far.
#[derive(Debug, Default)]
pub struct CappedLog {
    pub entries: VecDeque<Document>,
    pub next: u64,
}

impl CappedLog {
    pub fn documents(&self) -> Vec<Document> {
        self.entries.iter().cloned().collect()
    }

    pub fn push(&mut self, started_secs: u64, mut entry: Document) {
        let n = self.next;
        self.next += 1;
        let mut with_id = doc! {"_id": format!("shardtop-{started_secs}-{n}")};
        with_id.extend(std::mem::take(&mut entry));
        self.entries.push_back(with_id);
        while self.entries.len() > KEEP {
            self.entries.pop_front();
        }
    }
}
