//! The options of `shardtop lab`.

use std::path::PathBuf;

use clap::Args;

/// A built-in data set with its traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LabExample {
    /// `shop.orders`: 200,000 orders from 20,000 customers in eight cities, its
    /// unique index `{customerId: 1, orderNo: 1}`, its four candidate keys and its queries.
    Orders,
}

/// Options of `shardtop lab`.
#[derive(Debug, Args)]
pub struct LabArgs {
    /// A built-in example instead of a data file.
    #[arg(long, value_enum, conflicts_with = "data")]
    pub example: Option<LabExample>,
    /// The documents: JSON lines or a JSON array in Extended JSON (what mongoexport writes), or
    /// BSON (`.bson`, `.bson.gz`, what mongodump writes); at most 1,000,000. One of `--data`,
    /// `--from` and `--example` is needed (`shardtop lab --example orders` to try it).
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
    /// Read the documents from a live collection instead (`--ns`), a `$sample` of them through
    /// a mongos or a mongod, read-only, with its unique indexes.
    #[arg(long, value_name = "URI", conflicts_with_all = ["data", "example"], requires = "ns")]
    pub from: Option<String>,
    /// How many documents `--from` samples (at most 1,000,000).
    #[arg(long, value_name = "N", default_value_t = 100_000, requires = "from")]
    pub sample: u64,
    /// The traffic from the cluster's sampled queries of `--ns` (`$listSampledQueries`, 7.0+;
    /// turn sampling on with `configureQueryAnalyzer`).
    #[arg(long, requires = "from")]
    pub sampled_queries: bool,
    /// The traffic: JSON lines, one operation each, e.g. `{"find": {"customerId": 7}, "weight":
    /// 3}`; also count, distinct, aggregate (its leading $match), update, delete, findAndModify.
    #[arg(long, value_name = "FILE")]
    pub workload: Option<PathBuf>,
    /// The traffic from a MongoDB log file (structured JSON, 4.4+): its slow-query lines on
    /// `--ns`.
    #[arg(long, value_name = "FILE", requires = "ns")]
    pub log: Option<PathBuf>,
    /// The namespace (db.coll) of `--from`, and whose queries `--log` or `--sampled-queries` read.
    #[arg(long, value_name = "DB.COLL")]
    pub ns: Option<String>,
    /// A candidate shard key, 2 to 6 of them: `--key '{"customerId": 1, "placedAt": 1}'`
    /// (with `--example`, default: the example's candidates).
    #[arg(long = "key", value_name = "PATTERN")]
    pub keys: Vec<String>,
    /// Propose candidates from the traffic and a sample of the documents (with the reason for
    /// each) and try them beside the `--key`s.
    #[arg(long)]
    pub suggest: bool,
    /// A unique index of the collection (repeatable): which candidates allow it.
    #[arg(long = "unique", value_name = "PATTERN")]
    pub unique: Vec<String>,
    /// Shards of the simulated cluster.
    #[arg(long, default_value_t = 3)]
    pub shards: u32,
    /// A zone and its shards: `--zone EU=shard0000` (repeatable).
    #[arg(long = "zone", value_name = "ZONE=SHARD,…")]
    pub zones: Vec<String>,
    /// A zone range on leading key fields, as Extended JSON: `--zone-range '{"zone": "EU",
    /// "min": {"region": "EU"}, "max": {"region": "EU~"}}'`; it applies to the candidates whose
    /// keys start with those fields (the rest of the key is MinKey), as updateZoneKeyRange takes
    /// it.
    #[arg(long = "zone-range", value_name = "JSON")]
    pub zone_ranges: Vec<String>,
    /// Chunk size in MB (1 to 1024). The default, 1 MB, lets a sample of
    /// documents divide into chunks as a whole collection would at the server's default.
    #[arg(long, value_name = "MB", default_value_t = 1)]
    pub chunk_size: u64,
    /// Simulate this MongoDB release line (default 8.0).
    #[arg(long)]
    pub server_version: Option<String>,
    /// Insert the documents in the order of this field (dotted path) instead of the file's.
    #[arg(long, value_name = "FIELD")]
    pub order_by: Option<String>,
    /// Start each candidate from the chunks of an empty collection (one chunk, or a hashed
    /// key's pre-split chunks): every document is a new insert.
    #[arg(long, conflicts_with = "initial")]
    pub from_empty: bool,
    /// The percentage of the documents laid out as reshardCollection would before the new
    /// inserts start.
    #[arg(long, value_name = "PERCENT", default_value_t = 50)]
    pub initial: u8,
    /// New inserts per second of simulated time (how fast they come next to the balancer).
    #[arg(long, value_name = "DOCS", default_value_t = 1000.0)]
    pub rate: f64,
    /// reshardCollection's numInitialChunks for the layout (default: the release line's, 90
    /// from 6.0).
    #[arg(long, value_name = "N")]
    pub num_initial_chunks: Option<u32>,
    /// Also write each candidate's final chunks (min, max, shard, bytes, documents, jumbo) to
    /// FILE as JSON (format `shardtop-lab-chunks`, version 1); with the report, not the TUI.
    #[arg(long, value_name = "FILE")]
    pub chunk_map: Option<PathBuf>,
    /// Replace a file already at `--chunk-map` (otherwise refused, exit 2).
    #[arg(long, requires = "chunk_map")]
    pub force: bool,
    /// Print the report as JSON (format `shardtop-lab`, version 1).
    #[arg(long, conflicts_with_all = ["markdown", "text"])]
    pub json: bool,
    /// Print only the comparison table, in markdown.
    #[arg(long, conflicts_with = "text")]
    pub markdown: bool,
    /// Print the report as text even in a terminal (without a terminal it always is).
    #[arg(long)]
    pub text: bool,
    /// The TUI's speed: virtual seconds per real second (default 4).
    #[arg(long)]
    pub speed: Option<f64>,
    /// Start the TUI paused.
    #[arg(long)]
    pub paused: bool,
}
