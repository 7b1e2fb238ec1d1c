//! Which fields of a capture's documents hold what (`capture --anonymize`): namespaces,
//! databases, shards, hosts, replica sets, zones, users, a server's free text, shard-key values,
//! and the fields dropped from a server's answers.
//!
//! Owns: the lists. May not touch: anything else.

/// Fields whose string is a namespace (`db.coll`) or, without a dot, a database.
pub const NS_FIELDS: &[&str] = &[
    "ns",
    "namespace",
    "nss",
    "sourceNss",
    "tempNs",
    "balancerCollectionStatus",
    "moveChunk",
    "_shardsvrMoveRange",
    "reshardCollection",
    "shardCollection",
];
/// Fields whose string is a database.
pub const DB_FIELDS: &[&str] = &["db", "dbName", "database"];
/// Fields whose string (or array of strings) is a shard.
pub const SHARD_FIELDS: &[&str] = &[
    "shard",
    "shardName",
    "shardId",
    "fromShard",
    "toShard",
    "donorShard",
    "recipientShard",
    "donorShardId",
    "recipientShardId",
    "shardDrainingStatus",
    "from",
    "to",
    "shards",
];
/// Fields whose string is a host, `host:port` or a connection string (`rs/h:p,…`): with
/// `$currentOp`'s `configdb` (the config servers) and the changelog's `initShards`.
pub const HOST_FIELDS: &[&str] = &[
    "host",
    "configdb",
    "initShards",
    "hosts",
    "server",
    "clientAddr",
    "client",
    "me",
    "passives",
    "arbiters",
    "connectionString",
    "configsvrConnectionString",
    "advisoryHostFQDNs",
];
/// Fields whose string is a replica set.
pub const SET_FIELDS: &[&str] = &["setName", "replicaSet", "rsName"];
/// Fields whose string (or array of strings) is a zone.
pub const ZONE_FIELDS: &[&str] = &["tag", "tags", "zone", "zoneName"];
/// Fields whose string is a user.
pub const USER_FIELDS: &[&str] = &["user"];
/// Fields of a server's words (`shardtop`: the words `serve` puts in its changelog entries'
/// `details`).
pub const TEXT_FIELDS: &[&str] = &[
    "errmsg", "errMsg", "msg", "message", "reason", "desc", "note", "shardtop",
];
/// Fields whose document is a shard-key value (or an array of them).
pub const BOUND_FIELDS: &[&str] = &[
    "min",
    "max",
    "lowerBound",
    "upperBound",
    "splitKeys",
    "splitPoints",
    "middle",
    "splitKey",
];
/// Fields of a server's answer dropped wherever they are: the client's software, application
/// name and address, its session (`lsid.uid` is a hash of the user's name) and its comment
/// (`$currentOp`'s, mongo repo `src/mongo/db/curop.cpp`), and a user's documents and queries
/// inside an operation's command (filters, updates, inserted documents, pipelines).
pub const DROPPED: &[&str] = &[
    "clientMetadata",
    "appName",
    "client_s",
    "lsid",
    "comment",
    "filter",
    "query",
    "q",
    "u",
    "update",
    "updates",
    "deletes",
    "documents",
    "pipeline",
    "let",
];
/// Pipeline stages whose documents are users' data (sampled documents and queries): their
/// documents are dropped.
pub const DATA_STAGES: &[&str] = &["$sample", "$listSampledQueries"];

/// The words that replace a server's free text that may quote shard-key values.
pub const REMOVED: &str = "(removed by --anonymize: it may quote shard-key values)";
