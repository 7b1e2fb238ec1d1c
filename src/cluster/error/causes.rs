//! MongoDB's errors in plain words: a table keyed by MongoDB's own error text and code name,
//! each entry with the MongoDB source file whose words and rule it follows, saying what the error
//! means for the cluster and what happens next. The event log's detail view (`Enter` on an
//! event) shows it beside the error; a diagnosis of a stall can name its cause from it.
//!
//! Owns: the table and the lookup. May not touch: I/O, the simulator, the views. An error the
//! table does not know has no cause here (the caller says so; nothing is guessed).

/// One error MongoDB raises, in plain words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorCause {
    /// The error's code, as `error_codes.yml` numbers it.
    pub code: i32,
    pub code_name: &'static str,
    /// A phrase of MongoDB's own message naming this cause; `None`: any error of the code.
    pub phrase: Option<&'static str>,
    /// The cause in a few words.
    pub cause: &'static str,
    /// The rule a diagnosis names it by (`rangeDeletionPending`, `chunkTooBig`, …).
    pub rule: &'static str,
    /// What it means and what happens next, in plain words.
    pub meaning: &'static str,
    /// The MongoDB source file the message and the rule come from.
    pub source: &'static str,
}

/// The table: entries with a phrase first (the most specific), then the codes alone.
pub const CAUSES: &[ErrorCause] = &[
    ErrorCause {
        code: 262,
        code_name: "ExceededTimeLimit",
        phrase: Some("orphans cleanup routine didn't clear yet"),
        cause: "orphans of the range are still on the recipient",
        rule: "rangeDeletionPending",
        meaning: "The recipient shard still holds orphaned documents of an overlapping range, left \
                  by an earlier migration away from it, that its range deleter has not removed \
                  yet. Before it copies anything the recipient waits for them to go, up to \
                  receiveChunkWaitForRangeDeleterTimeoutMS (10 s), then the migration fails. The \
                  range deleter removes a range orphanCleanupDelaySecs after the migration that \
                  left it (900 s; 3,600 s from 8.2): until then every move of this range to that \
                  shard fails the same way, and the balancer tries again each round.",
        source: "src/mongo/db/s/migration_destination_manager.cpp",
    },
    ErrorCause {
        code: 153,
        code_name: "ChunkTooBig",
        phrase: Some("Cannot move chunk: the maximum number of documents for a chunk is"),
        cause: "the chunk is too big to move",
        rule: "chunkTooBig",
        meaning: "The chunk holds more documents than a migration may copy: twice what a chunk of \
                  the configured size holds at the collection's average document size, or 250,001 \
                  when the donor cannot tell the size. The balancer then \
                  splits the chunk, or marks it jumbo when it cannot be split (every document \
                  has the same shard-key value) and stops moving it, unless \
                  attemptToBalanceJumboChunks is set or a drain forces it.",
        // `migration_chunk_cloner_source_legacy.cpp` before 7.0 (`_storeCurrentRecordId`).
        source: "src/mongo/db/s/migration_chunk_cloner_source.cpp",
    },
    ErrorCause {
        code: 117,
        code_name: "ConflictingOperationInProgress",
        phrase: Some("Collection is undergoing changes and chunks cannot be moved"),
        cause: "migrations of the collection are not allowed",
        rule: "permitMigrations",
        meaning: "The collection's migrations are switched off (setAllowMigrations false, \
                  permitMigrations: false in config.collections), or a DDL operation holds it: \
                  no chunk of it commits a move until that ends.",
        source: "src/mongo/db/s/config/sharding_catalog_manager_chunk_operations.cpp",
    },
    ErrorCause {
        code: 117,
        code_name: "ConflictingOperationInProgress",
        phrase: None,
        cause: "another operation holds the shard or the collection",
        rule: "conflictingOperationInProgress",
        meaning: "The shard is already donating or receiving a chunk (a shard takes part in one \
                  migration at a time), or a split, merge, drain or other DDL operation of the \
                  collection is running. Nothing is wrong: the balancer tries again at a later \
                  round, once the other operation has ended.",
        source: "src/mongo/db/s/active_migrations_registry.cpp",
    },
    ErrorCause {
        code: 153,
        code_name: "ChunkTooBig",
        phrase: None,
        cause: "the chunk is too big to move",
        rule: "chunkTooBig",
        meaning: "The chunk is over the size a migration may copy. The balancer splits it, or \
                  marks it jumbo when it cannot be split, and then leaves it where it is unless \
                  attemptToBalanceJumboChunks is set or a drain forces it.",
        source: "src/mongo/db/s/balancer/balancer.cpp",
    },
    ErrorCause {
        code: 262,
        code_name: "ExceededTimeLimit",
        phrase: None,
        cause: "an operation ran out of time",
        rule: "exceededTimeLimit",
        meaning: "A step of the operation did not finish within its deadline (a wait for the \
                  recipient, a lock, the critical section, or the client's maxTimeMS) and was \
                  given up; a migration that failed this way is tried again by the balancer at \
                  a later round.",
        source: "src/mongo/base/error_codes.yml",
    },
];

/// The cause of an error: the first entry whose phrase `message` contains, else the first whose
/// code name is `code_name` or is named in `message` as the server nests errors
/// (`… :: caused by :: ExceededTimeLimit: …`); `None` when the table does not know it.
pub fn cause_of(code_name: Option<&str>, message: &str) -> Option<&'static ErrorCause> {
    let by_phrase = CAUSES
        .iter()
        .find(|c| c.phrase.is_some_and(|p| message.contains(p)));
    by_phrase.or_else(|| {
        let named = |c: &&ErrorCause| {
            code_name == Some(c.code_name) || message.contains(&format!("{}:", c.code_name))
        };
        CAUSES.iter().filter(|c| c.phrase.is_none()).find(named)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A real 8.0.32 mongos's words on a `moveRange` back onto a shard holding that range's
    /// orphans (the fixtures' `commands-8.0.ejson.txt`), the simulator's words too.
    const ORPHANS: &str = "Command request failed on source shard. :: caused by :: Data transfer \
        error: migrate failed: ExceededTimeLimit: Migration failed because the orphans cleanup \
        routine didn't clear yet a portion of the range being migrated that was previously owned \
        by the recipient shard.";

    #[test]
    fn orphans_on_the_recipient_are_named_through_the_wrapping_operation_failed() {
        let c = cause_of(Some("OperationFailed"), ORPHANS).unwrap();
        assert_eq!(c.cause, "orphans of the range are still on the recipient");
        assert_eq!(c.code_name, "ExceededTimeLimit");
        assert_eq!(c.source, "src/mongo/db/s/migration_destination_manager.cpp");
        assert!(c.meaning.contains("orphanCleanupDelaySecs"));
    }

    #[test]
    fn chunk_too_big_by_its_words_and_by_its_code() {
        // 4.4–8.0 `migration_chunk_cloner_source{_legacy}.cpp`, as the simulator says it.
        let words = "Cannot move chunk: the maximum number of documents for a chunk is 2, the \
            maximum chunk size is 1048576, average document size is 1024. Found 3000 documents";
        let c = cause_of(Some("ChunkTooBig"), words).unwrap();
        assert_eq!(c.phrase, CAUSES[1].phrase);
        assert!(c.meaning.contains("jumbo"));
        let c = cause_of(Some("ChunkTooBig"), "chunk too big").unwrap();
        assert_eq!(c.source, "src/mongo/db/s/balancer/balancer.cpp");
    }

    #[test]
    fn conflicting_operations_by_words_and_code() {
        let permit = "Collection is undergoing changes and chunks cannot be moved";
        let c = cause_of(Some("ConflictingOperationInProgress"), permit).unwrap();
        assert!(c.meaning.contains("setAllowMigrations"));
        let donating = "Unable to start new balancer operation because this shard is currently \
            donating chunk [{ _id: MinKey }, { _id: 0 }) for namespace app.events to shard0001";
        let c = cause_of(Some("ConflictingOperationInProgress"), donating).unwrap();
        assert_eq!(c.source, "src/mongo/db/s/active_migrations_registry.cpp");
        // Named inside another error's message, as a server nests them.
        let nested = format!("Data transfer error: ConflictingOperationInProgress: {donating}");
        assert_eq!(cause_of(Some("OperationFailed"), &nested), Some(c));
    }

    #[test]
    fn exceeded_time_limit_alone_and_an_unknown_error() {
        let c = cause_of(Some("ExceededTimeLimit"), "operation exceeded time limit").unwrap();
        assert_eq!(c.cause, "an operation ran out of time");
        assert_eq!(c.code, 262);
        assert_eq!(cause_of(Some("BadValue"), "no such thing"), None);
        assert_eq!(cause_of(None, "the round reported an error"), None);
    }

    #[test]
    fn every_entry_names_a_mongodb_source_file_and_the_codes_agree() {
        for c in CAUSES {
            assert!(c.source.starts_with("src/mongo/"), "{c:?}");
            let same = CAUSES.iter().filter(|o| o.code_name == c.code_name);
            assert!(same.clone().all(|o| o.code == c.code), "{c:?}");
            assert!(c.meaning.len() > 80 && !c.cause.is_empty(), "{c:?}");
        }
    }
}
