//! The end of a connection: the driver's sessions ended on the cluster (its own `endSessions`)
//! and its connections closed, in a bounded time, while the runtime still runs. Dropped instead,
//! the driver ends them in a task of its own, which panics (mongodb 3.9.1
//! `cmap/connection_requester.rs`) when the runtime shuts down under it.
//!
//! Owns: that ending. May not touch: the reads (`client.rs`).

use std::time::Duration;

use super::{Backend, LiveClient};

/// How long the driver may take to end its sessions when a command is done with a cluster.
pub const CLOSE_WITHIN: Duration = Duration::from_millis(300);

impl LiveClient {
    /// Ends the driver's sessions and closes its connections, waiting at most `within`; a
    /// capture's client has none.
    pub async fn close(self, within: Duration) {
        if let Backend::Network(client) = self.backend {
            let _ = tokio::time::timeout(within, client.shutdown()).await;
        }
    }
}
