//! MongoDB's own words for why a migration failed or the balancer did not move a chunk, each read
//! as a rule with its plain meaning and the source file the words come from: a server's errors
//! by `cluster::error::causes` (the table the event detail view reads too), the balancer's own
//! reasons (a jumbo chunk, the window, the collection's settings) by the table here.
//!
//! Owns: the table and [`classify`]. May not touch: anything but the text it is given.

/// A text read as a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified {
    /// The rule, in MongoDB's word where it has one.
    pub rule: &'static str,
    /// What it means, in plain words: what holds it back and what lets it go on.
    pub plain: String,
    /// The MongoDB source file the words come from.
    pub source: &'static str,
}

/// One row: the words that recognise it (any of them, case-insensitive), the rule, its plain
/// meaning and the source file.
struct Row {
    words: &'static [&'static str],
    rule: &'static str,
    plain: &'static str,
    source: &'static str,
}

const TABLE: &[Row] = &[
    Row {
        words: &["failed to refresh the balancer settings"],
        rule: "activeWindowRejected",
        plain: "the config server rejects the balancer document (an activeWindow needs \
                {start: \"hh:mm\", stop: \"hh:mm\"}, hours 00-23, minutes 00-59, start and stop \
                different), so it skips every round: no balancing until the document is fixed",
        source: "src/mongo/s/balancer_configuration.cpp",
    },
    Row {
        words: &["jumbo"],
        rule: "jumbo",
        plain: "a chunk marked jumbo is never moved by the balancer: split it if its key values \
                allow, move it with moveChunk and forceJumbo, or clear the flag (clearJumboFlag)",
        source: "src/mongo/db/s/balancer/balancer_policy.cpp",
    },
    Row {
        words: &["outside the balancer's active window", "active window"],
        rule: "activeWindow",
        plain: "the balancer only balances inside its activeWindow, and it is closed now",
        source: "src/mongo/s/balancer_configuration.cpp",
    },
    Row {
        words: &["nobalance"],
        rule: "noBalance",
        plain: "balancing is switched off for this collection (sh.disableBalancing); \
                balancerCollectionStatus calls it compliant because the balancer skips it",
        source: "src/mongo/db/s/balancer/balancer_chunk_selection_policy_impl.cpp",
    },
    Row {
        words: &["setallowmigrations false", "permitmigrations"],
        rule: "permitMigrations",
        plain: "migrations of this collection are not allowed (setAllowMigrations false)",
        source: "src/mongo/db/s/balancer/balancer_chunk_selection_policy_impl.cpp",
    },
    Row {
        words: &["no shard of its zone", "no other shard", "zone"],
        rule: "zone",
        plain: "the zone's ranges need a shard of that zone to take them, and none can",
        source: "src/mongo/db/s/balancer/balancer_policy.cpp",
    },
    Row {
        words: &["the balancer is stopped", "balancer stopped"],
        rule: "balancerStopped",
        plain: "the balancer is stopped (sh.stopBalancer): nothing moves until sh.startBalancer",
        source: "src/mongo/db/s/balancer/balancer.cpp",
    },
];

/// The rule `text` states, when it knows its words: a server's error by the table of MongoDB's
/// errors (`cluster::error::causes`, the one the event detail view reads), else the balancer's
/// own reasons by the table below.
pub fn classify(text: &str) -> Option<Classified> {
    if let Some(c) = crate::cluster::error::causes::cause_of(None, text) {
        return Some(Classified {
            rule: c.rule,
            plain: c.meaning.split_whitespace().collect::<Vec<_>>().join(" "),
            source: c.source,
        });
    }
    let lower = text.to_lowercase();
    TABLE
        .iter()
        .find(|row| row.words.iter().any(|w| lower.contains(w)))
        .map(|row| Classified {
            rule: row.rule,
            plain: row.plain.split_whitespace().collect::<Vec<_>>().join(" "),
            source: row.source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row is recognised from the server's own words, as real servers and the simulator
    /// write them.
    #[test]
    fn the_servers_words_are_read_as_their_rule() {
        let cases = [
            // A real 8.0 `moveRange` onto a shard holding that range's orphans (the fixtures'
            // commands-8.0.ejson.txt).
            (
                "Command request failed on source shard. :: caused by :: Data transfer error: \
                 migrate failed: ExceededTimeLimit: Migration failed because the orphans cleanup \
                 routine didn't clear yet a portion of the range being migrated that was \
                 previously owned by the recipient shard.",
                "rangeDeletionPending",
            ),
            (
                "ChunkTooBig: Cannot move chunk: the maximum number of documents",
                "chunkTooBig",
            ),
            ("chunk at { x: 5 } on shard0000 marked jumbo", "jumbo"),
            (
                "ConflictingOperationInProgress: Unable to start new balancer operation",
                "conflictingOperationInProgress",
            ),
            (
                "ExceededTimeLimit: operation exceeded time limit",
                "exceededTimeLimit",
            ),
            ("outside the balancer's active window", "activeWindow"),
            (
                "balancing is disabled for this collection (noBalance)",
                "noBalance",
            ),
            (
                "migrations are not allowed (setAllowMigrations false)",
                "permitMigrations",
            ),
            ("the balancer is stopped", "balancerStopped"),
            (
                "Failed to refresh the balancer settings :: caused by :: activeWindow format is \
                 { start: \"hh:mm\" , stop: \"hh:mm\" }",
                "activeWindowRejected",
            ),
        ];
        for (text, rule) in cases {
            assert_eq!(classify(text).map(|c| c.rule), Some(rule), "{text}");
        }
        assert_eq!(classify("something else entirely"), None);
    }
}
