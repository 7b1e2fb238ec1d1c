//! The command log (`--log-commands FILE`): one JSON line per command received, and one line per
//! refused connection or malformed message. Without a command log those lines go to stderr.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// A file of JSON lines, shared by the connection tasks and the ticker (each line is
/// written whole under a short lock that is never held across an await).
pub struct CommandLog {
    file: Mutex<std::io::BufWriter<std::fs::File>>,
}

impl CommandLog {
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::File::create(path)?;
        Ok(Self {
            file: Mutex::new(std::io::BufWriter::new(file)),
        })
    }

    /// Writes one JSON value as a line and flushes it.
    pub fn write(&self, value: &serde_json::Value) {
        if let Ok(mut f) = self.file.lock() {
            let _ = writeln!(f, "{value}");
            let _ = f.flush();
        }
    }
}

/// Logs a connection-level event: `{"event": text}` in the command log, else a line on stderr.
pub(crate) fn line(log: Option<&CommandLog>, text: &str) {
    match log {
        Some(log) => log.write(&serde_json::json!({ "event": text })),
        // A namespace or a client's words may hold control characters: shown escaped.
        None => eprintln!(
            "shardtop serve: {}",
            crate::units::printable::printable(text)
        ),
    }
}
