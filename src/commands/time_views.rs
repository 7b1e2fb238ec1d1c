//! `--heatmap COLSxROWS` and `--history` of `sim --json` and `replay --json`: the writes and
//! samples gathered while a run plays, added to each collection of its JSON summary.

use serde_json::Value;

use super::Failure;
use crate::cluster::heat_history::HeatLog;
use crate::cluster::history::{HISTORY_KEEP, History};
use crate::cluster::{Cluster, Event};

/// What a run gathers for its summary.
pub struct TimeViews {
    grid: Option<(usize, usize)>,
    heat: HeatLog,
    history: Option<History>,
}

/// `COLSxROWS`, each 1 to 1,000.
fn grid(text: &str) -> Result<(usize, usize), Failure> {
    let bad = || {
        Failure::input(format!(
            "--heatmap {text:?}: give COLSxROWS, each 1 to 1000"
        ))
    };
    let (c, r) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let n = |s: &str| {
        s.trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
    };
    Ok((n(c).ok_or_else(bad)?, n(r).ok_or_else(bad)?))
}

impl TimeViews {
    pub fn new(heatmap: Option<&str>, history: bool) -> Result<Self, Failure> {
        Ok(Self {
            grid: heatmap.map(grid).transpose()?,
            heat: HeatLog::default(),
            history: history.then(|| History::new(HISTORY_KEEP)),
        })
    }

    /// Whether the run must be played in one-second steps (history samples each second).
    pub fn samples(&self) -> bool {
        self.history.is_some()
    }

    /// Whether anything is gathered at all.
    pub fn wanted(&self) -> bool {
        self.grid.is_some() || self.history.is_some()
    }

    pub fn observe(&mut self, events: &[Event]) {
        if self.grid.is_some() {
            self.heat.observe(events);
        }
    }

    pub fn sample(&mut self, cluster: &Cluster) {
        if let Some(h) = self.history.as_mut() {
            h.sample(cluster);
        }
    }

    /// Adds `heatmap` and `history` to each collection of `summary` (a run over `[0, end_ms]`).
    pub fn add_to(&self, summary: &mut Value, cluster: &Cluster, end_ms: u64) {
        for c in summary["collections"].as_array_mut().into_iter().flatten() {
            let ns = c["ns"].as_str().unwrap_or_default().to_string();
            if let Some((cols, rows)) = self.grid {
                c["heatmap"] = self.heat.heatmap(cluster, &ns, cols, rows, end_ms);
            }
            if let Some(h) = &self.history {
                c["history"] = h.json(&ns);
            }
        }
    }
}
