//! What a source keeps of the past for the views over time: the writes and migrations for the
//! key visualizer, and the per-shard history sampled once a second of the source's time, both
//! bounded to the configured length.

use crate::cluster::heat_history::HeatLog;
use crate::cluster::history::History;
use crate::cluster::{Cluster, Event};
use crate::view;

/// How much of the past is kept when nothing is configured: an hour.
pub const KEEP_SECS: u64 = 3600;

/// A source's past.
#[derive(Clone, Debug)]
pub struct Past {
    pub heat: HeatLog,
    pub history: History,
    /// When the history was last sampled.
    sampled_ms: Option<u64>,
}

impl Past {
    /// Keeps `keep_secs` of writes and of one-a-second samples.
    pub fn keeping(keep_secs: u64) -> Self {
        let keep_secs = keep_secs.max(1);
        Self {
            heat: HeatLog::keeping(keep_secs.saturating_mul(1000)),
            history: History::new(usize::try_from(keep_secs).unwrap_or(usize::MAX)),
            sampled_ms: None,
        }
    }

    /// Takes the writes and migrations of `events`.
    pub fn observe(&mut self, events: &[Event]) {
        self.heat.observe(events);
    }

    /// Samples the history when a second or more has passed since the last sample.
    pub fn sample(&mut self, cluster: &Cluster) {
        if self
            .sampled_ms
            .is_none_or(|t| cluster.now_ms >= t.saturating_add(1000) || cluster.now_ms < t)
        {
            self.history.sample(cluster);
            self.sampled_ms = Some(cluster.now_ms);
        }
    }

    /// Forgets what came after `t_ms` (the clock went back).
    pub fn truncate_after(&mut self, t_ms: u64) {
        self.heat.truncate_after(t_ms);
        self.history.truncate_after(t_ms);
        self.sampled_ms = self.history.times().back().copied();
    }

    /// The past as a frame takes it (`view::frame`); the key visualizer only
    /// `with_key_visualizer` (a source without per-chunk writes leaves it out, and the view
    /// says why).
    pub fn parts(&self, with_key_visualizer: bool) -> view::frame::Past<'_> {
        view::frame::Past {
            heat: &self.heat,
            history: &self.history,
            key_visualizer: with_key_visualizer,
        }
    }
}
