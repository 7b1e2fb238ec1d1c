//! The write signal `watch` uses when none is asked for (`--heat auto`): chosen once, after the
//! first poll, by what this user may read and what it costs the cluster, with the reason in
//! words for the event log and the header.
//!
//! The order: change streams when this user may open them on every watched collection (they are
//! the writes themselves, inserts included, mapped to chunks; each poll reads a bounded part of
//! each stream) and there are at most [`STREAMS_AT_MOST`] of them (each stream holds a cursor on
//! every shard's oplog); else the queries the cluster already samples (`$listSampledQueries`,
//! when there are any); else data growth (`size`, no extra read at all).
//!
//! Whether the user may open a change stream comes from `connectionStatus` with
//! `showPrivileges` (allowlisted, read-only): `changeStream` and `find` on the namespace
//! (`src/mongo/db/pipeline/document_source_change_stream.cpp`, `LiteParsed::requiredPrivileges`).
//! No user logged in on a cluster that answered the first poll is a cluster without access
//! control: everything is allowed.
//!
//! Owns: the choice and its reason. May not touch: how a signal is read (`live::change_heat`,
//! `live::sampled_heat`, `source::heat`), the views.

use bson::{Bson, doc};

use super::live::HeatMode;
use crate::live::change_heat::streamable;
use crate::live::client::LiveClient;
use crate::live::privileges::{self, Privilege};

/// `auto` opens change streams on at most this many collections; past it, the cost to the
/// cluster (one cursor per collection on every shard, a `getMore` per collection and poll) is
/// not worth a default, and `--heat changestream` still opens them all.
pub const STREAMS_AT_MOST: usize = 100;

/// What `auto` found out about the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The collections a change stream can be opened on (not `admin`, `config`, `local`).
    pub collections: usize,
    /// Whether this user may open change streams on all of them (`None`: `connectionStatus`
    /// did not say).
    pub may_stream: Option<bool>,
    /// Whether the cluster holds sampled queries (`None`: not asked, change streams won).
    pub samples: Option<bool>,
}

/// The signal used and why, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub mode: HeatMode,
    /// `Some` when `auto` chose (the reason); `None` when the user asked for `mode`.
    pub why: Option<String>,
}

impl From<HeatMode> for Choice {
    /// The signal the user asked for.
    fn from(mode: HeatMode) -> Self {
        Self { mode, why: None }
    }
}

/// Whether change streams win, before sampled queries are even asked about.
pub fn streams_win(probe: &Probe) -> bool {
    probe.may_stream == Some(true) && probe.collections <= STREAMS_AT_MOST
}

/// `auto`'s choice from what it found out.
pub fn choose(probe: &Probe) -> Choice {
    let (mode, why) = if streams_win(probe) {
        (
            HeatMode::ChangeStream,
            "auto: this user may open change streams (changeStream + find) on the watched \
             collections — writes seen in the change stream"
                .to_string(),
        )
    } else {
        let streams = match probe.may_stream {
            Some(true) => format!(
                "change streams on {} collections cost too much for a default (at most {STREAMS_AT_MOST}; --heat changestream opens them)",
                probe.collections
            ),
            Some(false) => {
                "this user may not open change streams (needs changeStream + find)".into()
            }
            None => {
                "whether this user may open change streams is unknown (connectionStatus)".into()
            }
        };
        if probe.samples == Some(true) {
            (
                HeatMode::Sampled,
                format!("auto: {streams}; the cluster samples queries — sampled queries"),
            )
        } else {
            (
                HeatMode::Size,
                format!("auto: {streams}; no sampled queries — data growth between polls"),
            )
        }
    };
    Choice {
        mode,
        why: Some(why),
    }
}

/// Whether this user may open change streams on every one of `collections`: no user logged in
/// on a cluster that answers is no access control; else the privileges `connectionStatus` shows.
async fn may_stream(client: &LiveClient, collections: &[String]) -> Option<bool> {
    let status = client
        .command(
            "admin",
            doc! {"connectionStatus": 1, "showPrivileges": true},
        )
        .await
        .ok()?;
    let info = status.get_document("authInfo").ok()?;
    let users = info.get_array("authenticatedUsers").ok()?;
    if users.is_empty() {
        return Some(true);
    }
    let granted: Vec<Privilege> = info
        .get_array("authenticatedUserPrivileges")
        .ok()?
        .iter()
        .filter_map(Bson::as_document)
        .filter_map(Privilege::parse)
        .collect();
    Some(
        !collections.is_empty()
            && collections
                .iter()
                .all(|ns| privileges::allowed(&privileges::change_stream(ns), &granted)),
    )
}

/// The signal to use: `asked` when the user named one; else `auto`'s choice over the
/// collections of the first poll (`namespaces`).
pub async fn resolve(
    asked: Option<HeatMode>,
    client: &LiveClient,
    namespaces: &[String],
) -> Choice {
    if let Some(mode) = asked {
        return Choice { mode, why: None };
    }
    let collections: Vec<String> = namespaces
        .iter()
        .filter(|ns| streamable(ns))
        .cloned()
        .collect();
    let mut probe = Probe {
        collections: collections.len(),
        may_stream: may_stream(client, &collections).await,
        samples: None,
    };
    if !streams_win(&probe) {
        probe.samples = Some(crate::live::sampled_heat::available(client).await);
    }
    choose(&probe)
}

/// The event log's line saying which signal `auto` chose and why.
pub fn log_line(at_ms: u64, why: &str) -> crate::view::LogLine {
    crate::view::LogLine {
        at_ms,
        kind: crate::view::LogKind::Other,
        text: format!("heat: {why}"),
        migration: None,
        detail: None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Change streams exactly when they are granted and few enough; else samples when there
        /// are some; else growth. Always a reason, naming the signal.
        #[test]
        fn auto_picks_by_access_then_cost(
            collections in 0usize..300,
            may in prop::option::of(any::<bool>()),
            samples in any::<bool>(),
        ) {
            let probe = Probe { collections, may_stream: may, samples: Some(samples) };
            let c = choose(&probe);
            let streams = may == Some(true) && collections <= STREAMS_AT_MOST;
            let expected = if streams {
                HeatMode::ChangeStream
            } else if samples {
                HeatMode::Sampled
            } else {
                HeatMode::Size
            };
            prop_assert_eq!(c.mode, expected);
            let why = c.why.unwrap_or_default();
            let named = match expected {
                HeatMode::ChangeStream => "change stream",
                HeatMode::Sampled => "sampled queries",
                _ => "data growth",
            };
            prop_assert!(why.contains(named), "{}", why);
            prop_assert!(why.starts_with("auto: "));
        }
    }

    #[test]
    fn a_refusal_and_a_cost_are_named() {
        let refused = Probe {
            collections: 3,
            may_stream: Some(false),
            samples: Some(false),
        };
        assert_eq!(
            choose(&refused).why.unwrap(),
            "auto: this user may not open change streams (needs changeStream + find); no sampled \
             queries — data growth between polls"
        );
        let many = Probe {
            collections: STREAMS_AT_MOST + 1,
            may_stream: Some(true),
            samples: Some(true),
        };
        let c = choose(&many);
        assert_eq!(c.mode, HeatMode::Sampled);
        assert!(c.why.unwrap().contains("101 collections"));
    }
}
