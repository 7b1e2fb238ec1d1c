//! MongoDB's errors: a numeric code, its code name and a message — what the simulator raises when
//! it refuses or fails an operation, and what `serve` sends a client in its error reply.

use std::fmt;

pub mod causes;

/// A MongoDB error as a server reports it: `code`, `codeName` and `errmsg`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MongoError {
    pub code: i32,
    pub code_name: &'static str,
    pub message: String,
}

impl MongoError {
    fn new(code: i32, code_name: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            code_name,
            message: message.into(),
        }
    }

    /// An error raised with a `uassert` location code (`Location28746`…).
    pub fn location(code: i32, code_name: &'static str, m: impl Into<String>) -> Self {
        Self::new(code, code_name, m)
    }
    pub fn bad_value(m: impl Into<String>) -> Self {
        Self::new(2, "BadValue", m)
    }
    pub fn illegal_operation(m: impl Into<String>) -> Self {
        Self::new(20, "IllegalOperation", m)
    }
    pub fn namespace_not_found(m: impl Into<String>) -> Self {
        Self::new(26, "NamespaceNotFound", m)
    }
    pub fn shard_not_found(m: impl Into<String>) -> Self {
        Self::new(70, "ShardNotFound", m)
    }
    pub fn invalid_options(m: impl Into<String>) -> Self {
        Self::new(72, "InvalidOptions", m)
    }
    pub fn cannot_create_index(m: impl Into<String>) -> Self {
        Self::new(67, "CannotCreateIndex", m)
    }
    pub fn cannot_split(m: impl Into<String>) -> Self {
        Self::new(87, "CannotSplit", m)
    }
    pub fn conflicting_operation(m: impl Into<String>) -> Self {
        Self::new(117, "ConflictingOperationInProgress", m)
    }
    pub fn namespace_not_sharded(m: impl Into<String>) -> Self {
        Self::new(118, "NamespaceNotSharded", m)
    }
    pub fn chunk_too_big(m: impl Into<String>) -> Self {
        Self::new(153, "ChunkTooBig", m)
    }
    pub fn zone_still_in_use(m: impl Into<String>) -> Self {
        Self::new(163, "ZoneStillInUse", m)
    }
    pub fn zone_not_found(m: impl Into<String>) -> Self {
        Self::new(177, "ZoneNotFound", m)
    }
    pub fn range_overlap(m: impl Into<String>) -> Self {
        Self::new(178, "RangeOverlapConflict", m)
    }
    pub fn index_not_found(m: impl Into<String>) -> Self {
        Self::new(27, "IndexNotFound", m)
    }
    pub fn command_not_found(m: impl Into<String>) -> Self {
        Self::new(59, "CommandNotFound", m)
    }
    /// An IDL-parsed command given a field it does not know.
    pub fn unknown_field(m: impl Into<String>) -> Self {
        Self::new(40415, "Location40415", m)
    }
    pub fn command_not_supported(m: impl Into<String>) -> Self {
        Self::new(115, "CommandNotSupported", m)
    }
    /// The code of `ReshardingCriticalSectionTimeout` is not verified against `error_codes.yml`.
    pub fn resharding_critical_section_timeout(m: impl Into<String>) -> Self {
        Self::new(315, "ReshardingCriticalSectionTimeout", m)
    }
    pub fn reshard_collection_in_progress(m: impl Into<String>) -> Self {
        Self::new(338, "ReshardCollectionInProgress", m)
    }
    pub fn cannot_drop_shard_key_index(m: impl Into<String>) -> Self {
        Self::new(355, "CannotDropShardKeyIndex", m)
    }
    /// `commitShardRemoval` before the drain is done (8.3+; `error_codes.yml`: 1003141).
    pub fn remove_shard_draining_in_progress(m: impl Into<String>) -> Self {
        Self::new(1_003_141, "RemoveShardDrainingInProgress", m)
    }
    pub fn exceeded_time_limit(m: impl Into<String>) -> Self {
        Self::new(262, "ExceededTimeLimit", m)
    }
    pub fn namespace_exists(m: impl Into<String>) -> Self {
        Self::new(48, "NamespaceExists", m)
    }
    pub fn already_sharded(m: impl Into<String>) -> Self {
        Self::new(23, "AlreadyInitialized", m)
    }
}

impl fmt::Display for MongoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.code_name, self.code, self.message)
    }
}

impl std::error::Error for MongoError {}
