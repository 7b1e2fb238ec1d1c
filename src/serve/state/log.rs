//! The command log (`--log-commands FILE`): one JSON line per command received, and one line per
//! refused connection or malformed message. Without a command log those lines go to the line
//! sink the caller gave (the `serve` command writes them to stderr); `serve` itself never prints.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Where connection-level lines go when there is no command log (already escaped: a name in
/// them may come from a client). Called from any task; it must not block for long.
pub type LineSink = Arc<dyn Fn(&str) + Send + Sync>;

/// A file of JSON lines, shared by the connection tasks and the ticker (each line is
/// written whole under a short lock that is never held across an await), and the line sink.
pub struct CommandLog {
    file: Option<Mutex<std::io::BufWriter<std::fs::File>>>,
    lines: Option<LineSink>,
}

impl CommandLog {
    /// The log to `path` if given, else connection-level lines to `lines`; `None` when neither.
    pub fn open(path: Option<&Path>, lines: Option<LineSink>) -> std::io::Result<Option<Self>> {
        let file = match path {
            Some(p) => Some(Mutex::new(std::io::BufWriter::new(std::fs::File::create(
                p,
            )?))),
            None => None,
        };
        Ok((file.is_some() || lines.is_some()).then_some(Self { file, lines }))
    }

    /// Whether commands are recorded (a command log file is open).
    pub fn records_commands(&self) -> bool {
        self.file.is_some()
    }

    /// Writes one JSON value as a line and flushes it (nothing without a command log file).
    pub fn write(&self, value: &serde_json::Value) {
        if let Some(Ok(mut f)) = self.file.as_ref().map(Mutex::lock) {
            let _ = writeln!(f, "{value}");
            let _ = f.flush();
        }
    }
}

/// Logs a connection-level event: `{"event": text}` in the command log, else a line to the
/// caller's sink (escaped: a name in it may come from a client); else nowhere.
pub(crate) fn line(log: Option<&CommandLog>, text: &str) {
    match log {
        Some(log) if log.records_commands() => log.write(&serde_json::json!({ "event": text })),
        Some(CommandLog {
            lines: Some(sink), ..
        }) => sink(&crate::units::printable::printable(text)),
        _ => {}
    }
}
