//! The driver's failures in words an on-call engineer can act on (never with the password of
//! the URI): a server not reached, a name not resolved, a refusal of a command.
//!
//! Owns: the words of a failure. May not touch: what a read is for.

use mongodb::error::ErrorKind;

use super::{LiveError, hosts, redact};

/// The first server's error in a server-selection message (the driver writes its topology
/// there, with its errors in debug form: `Error: Kind: I/O error: …, labels: {…}, source: None`).
pub(super) fn server_error(message: &str) -> &str {
    message
        .split_once("Error: Kind: ")
        .and_then(|(_, rest)| rest.split(", labels:").next())
        .unwrap_or("no server answered")
}

pub(super) fn explain(e: &mongodb::error::Error, uri: &str) -> LiveError {
    let target = hosts(uri);
    let message = match &*e.kind {
        ErrorKind::Authentication { message, .. } => format!(
            "authentication to {target} failed ({message}); check the user and password (or authSource) in the URI"
        ),
        ErrorKind::DnsResolve { message, .. } => {
            let message = message.split(" for Query {").next().unwrap_or(message);
            format!("cannot resolve {target} ({message}); check the host name")
        }
        ErrorKind::InvalidTlsConfig { message, .. } => {
            format!("TLS settings rejected for {target}: {message}")
        }
        ErrorKind::ServerSelection { message, .. } => format!(
            "cannot reach {target}: {}; is the mongos running and reachable (host, port, firewall, TLS)?",
            server_error(message)
        ),
        ErrorKind::Io(io) => format!("connection to {target} failed: {io}"),
        ErrorKind::Command(c) => return command_error(&target, c.code, &c.code_name, &c.message),
        // The kind's own words: the error's `Display` adds `labels: {}, source: None`.
        kind => format!("{target}: {kind}"),
    };
    LiveError {
        message: redact(&message),
        input: false,
        unauthorized: false,
        code: None,
    }
}

/// The server's refusal of a command (its code, code name and message), in words.
pub(super) fn command_error(target: &str, code: i32, code_name: &str, message: &str) -> LiveError {
    let text = if code == 13 {
        format!(
            "not authorized on {target}: {message} — `shardtop watch URI --check` lists the privileges each read needs"
        )
    } else {
        format!("{target}: {code_name} ({code}) {message}")
    };
    LiveError {
        message: redact(&text),
        input: false,
        unauthorized: code == 13,
        code: Some(code),
    }
}
