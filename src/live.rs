//! Reading a real cluster into a cluster state: typed `config.*` documents of every server version
//! (4.4 to 8.0), the allowlisted read-only client, a mongos-like routing cache refreshed
//! incrementally, and the poller whose every poll yields a [`Cluster`](crate::cluster::Cluster).
//!
//! Owns: the document shapes, the client, the refresh logic, polling and recording. Builds on
//! `cluster`, `model` and `trace` (recording). May not touch: `sim` (a poll never makes a
//! simulator), the terminal, ratatui.

pub mod balancer_status;
pub mod bounds;
pub mod catalog;
pub mod change_heat;
pub mod change_text;
pub mod client;
pub mod compliance;
pub mod config;
pub mod data_sizes;
pub mod draining;
pub mod handshake;
pub mod heat_counts;
pub mod in_flight;
pub mod inconsistency;
pub mod logs;
pub mod one_poll;
pub mod poller;
pub mod privileges;
pub mod record;
pub mod refusals;
pub mod resharding_progress;
pub mod routing_cache;
pub mod sampled_heat;
pub mod snapshot;
pub mod time_check;

/// A URI written without its scheme (`127.0.0.1:27117`, `db.example.net`, `user:pw@h:1/x`) as
/// the `mongodb://` URI it likely means; `None` when it has a scheme (the driver judges the rest).
/// A host with `://` of another scheme gets no suggestion; a password is shown as `***`.
pub(crate) fn with_scheme(uri: &str) -> Option<String> {
    let t = uri.trim();
    if t.is_empty() || t.contains("://") {
        return None;
    }
    Some(client::redact(&format!("mongodb://{t}")))
}

/// The error of a URI without its scheme, with the URI meant.
pub(crate) fn missing_scheme(uri: &str) -> Option<client::LiveError> {
    with_scheme(uri).map(|suggested| client::LiveError {
        message: format!(
            "malformed URI: a connection string starts with mongodb:// or mongodb+srv:// — did you mean {suggested}?"
        ),
        input: true,
        unauthorized: false,
        code: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_without_its_scheme_gets_one_suggested() {
        assert_eq!(
            with_scheme("127.0.0.1:27117").as_deref(),
            Some("mongodb://127.0.0.1:27117")
        );
        assert_eq!(with_scheme("mongodb://h:1"), None);
        assert_eq!(with_scheme("mongodb+srv://c.example.net"), None);
        assert_eq!(with_scheme("http://h:1"), None);
        assert_eq!(with_scheme(""), None);
        assert_eq!(
            with_scheme("ops:s3cret@h:1/?authSource=admin").as_deref(),
            Some("mongodb://ops:***@h:1/?authSource=admin")
        );
    }
}
