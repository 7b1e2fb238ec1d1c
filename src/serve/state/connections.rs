//! The connections a server counts for `serverStatus.connections`
//! (`transport/service_entry_point_impl.cpp`'s `appendStats`: `current`, `available`,
//! `totalCreated`, `active`) and the most it serves at once (`net.maxIncomingConnections`,
//! 65,536 by default, held to 80% of the process's open-file limit as
//! `ServiceEntryPointImpl` holds it). Counted by the connection tasks, read by `serverStatus`.
//!
//! Data only.

use std::sync::atomic::{AtomicU64, Ordering};

/// `net.maxIncomingConnections`' default (`server_options.h`: `DEFAULT_MAX_CONN`).
pub const DEFAULT_MAX_INCOMING: usize = 65_536;

/// The default connection limit of this process: [`DEFAULT_MAX_INCOMING`], or 80% of the
/// open-file limit (`RLIMIT_NOFILE`, read from `/proc/self/limits`) when that is lower.
pub fn default_limit() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).map(str::to_string))
        })
        .and_then(|n| n.parse::<u64>().ok());
    match soft {
        Some(n) => DEFAULT_MAX_INCOMING.min((n as f64 * 0.8) as usize).max(1),
        None => DEFAULT_MAX_INCOMING,
    }
}

/// The counters.
#[derive(Debug)]
pub struct Connections {
    /// The most served at once.
    pub limit: usize,
    current: AtomicU64,
    total_created: AtomicU64,
    active: AtomicU64,
}

impl Connections {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            current: AtomicU64::new(0),
            total_created: AtomicU64::new(0),
            active: AtomicU64::new(0),
        }
    }

    /// A connection is served from now on.
    pub fn opened(&self) {
        self.current.fetch_add(1, Ordering::Relaxed);
        self.total_created.fetch_add(1, Ordering::Relaxed);
    }

    /// A served connection closed.
    pub fn closed(&self) {
        self.current.fetch_sub(1, Ordering::Relaxed);
    }

    /// A connection starts or ends a command.
    pub fn busy(&self, on: bool) {
        if on {
            self.active.fetch_add(1, Ordering::Relaxed);
        } else {
            self.active.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// `(current, available, totalCreated, active)`.
    pub fn counts(&self) -> (u64, u64, u64, u64) {
        let current = self.current.load(Ordering::Relaxed);
        (
            current,
            (self.limit as u64).saturating_sub(current),
            self.total_created.load(Ordering::Relaxed),
            self.active.load(Ordering::Relaxed),
        )
    }
}

impl Default for Connections {
    fn default() -> Self {
        Self::new(default_limit())
    }
}
