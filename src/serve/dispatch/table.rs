//! The table of the registry: every command `serve` answers, with its properties and handler
//! (see `registry` for what each property means), ordered by family; the lookup by name or
//! alias; and the markdown table `docs/serve.md` shows, generated from it (a test keeps them
//! equal; `SHARDTOP_BLESS=1 cargo test --lib docs_table` rewrites the document).
//!
//! May import the command handlers (`commands`), `state` and `reply`.

use bson::{Bson, Document};

use crate::serve::commands::sessions;
use crate::serve::commands::{
    aggregate, aggregate::change_stream, analyze, collections, config_writes, create_collection,
    db_stats, drain, drop_indexes, explain, find, handshake, indexes, insert, metadata,
    move_collection, parameters, query_analyzer, sharding, updates,
};
use crate::serve::dispatch::registry::Namespace;
use crate::serve::dispatch::registry::{
    Command,
    Privileges::{Aggregate, FindSettings, OnCollection, OnNamespace},
    Sampled, command,
};
use crate::serve::dispatch::transactions;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::reply::{self, Answer};

/// A handler's document answer as a reply.
fn doc(a: Answer) -> Result<Reply, crate::cluster::MongoError> {
    a.map(Reply::Doc)
}

const HANDSHAKE: &str = "handshake";
const SESSIONS: &str = "sessions";
const READS: &str = "reads";
const WRITES: &str = "writes";
const INDEXES: &str = "indexes";
const COLLECTIONS: &str = "collections";
const SHARDING: &str = "sharding";
const ZONES: &str = "zones";
const BALANCER: &str = "balancer";
const REMOVAL: &str = "shard removal";
const RESHARDING: &str = "resharding";
const METADATA: &str = "metadata";
const TRANSACTIONS: &str = "transactions";
const ANALYSIS: &str = "query analysis";
const PARAMETERS: &str = "parameters";

/// Every command `serve` answers.
pub const COMMANDS: &[Command] = &[
    // Handshake and the server's own state.
    command("hello", HANDSHAKE, |s, c| {
        doc(handshake::hello(s, c.cmd, c.ctx, false))
    })
    .without_state(),
    command("isMaster", HANDSHAKE, |s, c| {
        doc(handshake::hello(s, c.cmd, c.ctx, true))
    })
    .aliases(&["ismaster"])
    .without_state(),
    command("buildInfo", HANDSHAKE, |s, _| doc(handshake::build_info(s)))
        .aliases(&["buildinfo"])
        .without_state(),
    command("ping", HANDSHAKE, |_, _| {
        doc(Ok(reply::ok(Document::new())))
    })
    .without_state(),
    command("getCmdLineOpts", HANDSHAKE, |s, _| {
        doc(handshake::get_cmd_line_opts(s))
    })
    .admin_only(),
    command("getLog", HANDSHAKE, |_, c| doc(handshake::get_log(c.cmd))).admin_only(),
    command("connectionStatus", HANDSHAKE, |s, c| {
        Ok(Reply::Doc(sessions::connection_status(
            s.access.as_ref(),
            c.cmd,
        )))
    }),
    command("hostInfo", HANDSHAKE, |s, _| doc(handshake::host_info(s))).admin_only(),
    command("whatsmyuri", HANDSHAKE, |_, c| {
        doc(handshake::whats_my_uri(c.ctx))
    }),
    command("serverStatus", HANDSHAKE, |s, _| {
        doc(handshake::server_status(s))
    }),
    command("isdbgrid", HANDSHAKE, |s, _| doc(handshake::isdbgrid(s))),
    command("listDatabases", HANDSHAKE, |s, c| {
        doc(handshake::list_databases(s, c.cmd))
    })
    .admin_only(),
    command("listCollections", HANDSHAKE, |s, c| {
        doc(handshake::list_collections(s, c.db, c.cmd))
    }),
    command("listIndexes", HANDSHAKE, |s, c| {
        doc(handshake::list_indexes(s, c.db, c.cmd))
    })
    .on_collection(),
    command("listShards", HANDSHAKE, |s, _| {
        doc(handshake::list_shards(s))
    })
    .admin_only(),
    command("dbStats", HANDSHAKE, |s, c| {
        doc(db_stats::db_stats(s, c.db, c.cmd))
    })
    .aliases(&["dbstats"]),
    // Parameters.
    command("getParameter", PARAMETERS, |s, c| {
        doc(parameters::get_parameter(s, c.cmd))
    })
    .admin_only(),
    command("setParameter", PARAMETERS, |s, c| {
        doc(parameters::set(s, c.cmd))
    })
    .admin_only(),
    // Sessions.
    command("endSessions", SESSIONS, |s, c| {
        Ok(Reply::Doc(sessions::end_sessions(s, c.name, c.cmd)))
    }),
    command("killSessions", SESSIONS, |s, c| {
        Ok(Reply::Doc(sessions::end_sessions(s, c.name, c.cmd)))
    }),
    // Reads.
    command("find", READS, |s, c| find::find(s, c.db, c.cmd))
        .in_transaction()
        .privileges(OnCollection("find"))
        .sampled(Sampled::Read)
        .on_collection(),
    command("getMore", READS, |s, c| {
        let (id, n) = find::get_more_args(c.cmd)?;
        match change_stream::get_more(s, id, n) {
            Some(answer) => doc(answer),
            None => find::get_more(s, id, n),
        }
    })
    .in_transaction(),
    command("killCursors", READS, |s, c| {
        doc(find::kill_cursors(s, c.cmd))
    })
    .in_transaction(),
    command("count", READS, |s, c| doc(find::count(s, c.db, c.cmd)))
        .privileges(OnCollection("find"))
        .sampled(Sampled::Read)
        .on_collection(),
    command("distinct", READS, |s, c| {
        doc(find::distinct(s, c.db, c.cmd))
    })
    .in_transaction()
    .privileges(OnCollection("find"))
    .sampled(Sampled::Read)
    .on_collection(),
    command("aggregate", READS, |s, c| {
        doc(if reply::flag(c.cmd, "explain") {
            explain::aggregate::explain(s, c.db, c.cmd)
        } else {
            aggregate::aggregate(s, c.db, c.cmd)
        })
    })
    .in_transaction()
    .privileges(Aggregate)
    .sampled(Sampled::Read)
    .on_collection(),
    command("bulkWrite", WRITES, |s, c| {
        doc(super::bulk_write::bulk_write(s, c.cmd))
    })
    .admin_only(),
    command("explain", READS, |s, c| {
        doc(explain::explain(s, c.db, c.cmd))
    }),
    // Writes (to the config database: the settings and collection fields servers accept).
    command("insert", WRITES, |s, c| {
        doc(if c.db == "config" {
            config_writes::write(s, c.name, c.cmd)
        } else {
            insert::insert(s, c.db, c.cmd)
        })
    })
    .in_transaction()
    .privileges(OnCollection("insert"))
    .on_collection(),
    command("update", WRITES, |s, c| {
        doc(if c.db == "config" {
            config_writes::write(s, c.name, c.cmd)
        } else {
            updates::update(s, c.db, c.cmd)
        })
    })
    .in_transaction()
    .privileges(OnCollection("update"))
    .sampled(Sampled::Statements)
    .on_collection(),
    command("delete", WRITES, |s, c| {
        doc(if c.db == "config" {
            config_writes::write(s, c.name, c.cmd)
        } else {
            updates::delete(s, c.db, c.cmd)
        })
    })
    .in_transaction()
    .privileges(OnCollection("remove"))
    .sampled(Sampled::Statements)
    .on_collection(),
    command("findAndModify", WRITES, |s, c| {
        doc(updates::find_and_modify(s, c.db, c.cmd))
    })
    .aliases(&["findandmodify"])
    .in_transaction()
    .privileges(OnCollection("update"))
    .sampled(Sampled::Whole)
    .on_collection(),
    // Collections and databases.
    command("create", COLLECTIONS, |s, c| {
        doc(create_collection::create(s, c.db, c.cmd))
    })
    .on_collection(),
    command("drop", COLLECTIONS, |s, c| {
        doc(collections::drop(s, c.db, c.cmd))
    })
    .on_collection(),
    command("dropDatabase", COLLECTIONS, |s, c| {
        doc(collections::drop_database(s, c.db))
    }),
    command("renameCollection", COLLECTIONS, |s, c| {
        doc(collections::rename_collection(s, c.cmd))
    })
    .admin_only(),
    // Indexes.
    command("createIndexes", INDEXES, |s, c| {
        doc(indexes::create_indexes(s, c.db, c.cmd))
    })
    .in_transaction()
    .on_collection(),
    command("dropIndexes", INDEXES, |s, c| {
        doc(drop_indexes::drop_indexes(s, c.db, c.cmd))
    }),
    // Sharding.
    command("enableSharding", SHARDING, |s, c| {
        doc(sharding::enable_sharding(s, c.cmd))
    })
    .aliases(&["enablesharding"])
    .admin_only(),
    command("shardCollection", SHARDING, |s, c| {
        doc(sharding::shard_collection(s, c.cmd))
    })
    .aliases(&["shardcollection"])
    .admin_only(),
    command("addShard", SHARDING, |s, c| {
        doc(sharding::add_shard(s, c.cmd))
    })
    .aliases(&["addshard"])
    .admin_only(),
    command("split", SHARDING, |s, c| doc(sharding::split(s, c.cmd))).admin_only(),
    command("moveChunk", SHARDING, |s, c| {
        doc(sharding::move_chunk(s, c.cmd))
    })
    .admin_only(),
    command("moveRange", SHARDING, |s, c| {
        doc(sharding::move_range(s, c.cmd))
    })
    .admin_only(),
    command("mergeChunks", SHARDING, |s, c| {
        doc(sharding::merge_chunks(s, c.cmd))
    })
    .admin_only(),
    command("clearJumboFlag", SHARDING, |s, c| {
        doc(sharding::clear_jumbo_flag(s, c.cmd))
    }),
    command("configureCollectionBalancing", SHARDING, |s, c| {
        doc(sharding::configure_collection_balancing(s, c.cmd))
    })
    .admin_only(),
    // Zones.
    command("addShardToZone", ZONES, |s, c| {
        doc(sharding::shard_zone(s, c.cmd, true))
    })
    .admin_only(),
    command("removeShardFromZone", ZONES, |s, c| {
        doc(sharding::shard_zone(s, c.cmd, false))
    })
    .admin_only(),
    command("updateZoneKeyRange", ZONES, |s, c| {
        doc(sharding::update_zone_key_range(s, c.cmd))
    })
    .admin_only(),
    // The balancer.
    command("balancerStart", BALANCER, |s, _| {
        doc(sharding::set_balancer(s, true))
    })
    .admin_only(),
    command("balancerStop", BALANCER, |s, _| {
        doc(sharding::set_balancer(s, false))
    })
    .admin_only(),
    command("balancerStatus", BALANCER, |s, _| {
        doc(sharding::balancer_status(s))
    })
    .admin_only()
    .privileges(FindSettings),
    command("balancerCollectionStatus", BALANCER, |s, c| {
        doc(sharding::balancer_collection_status(s, c.cmd))
    })
    .admin_only()
    .privileges(OnNamespace("enableSharding")),
    // Removing shards.
    command("removeShard", REMOVAL, |s, c| {
        doc(drain::remove_shard(s, c.cmd))
    })
    .aliases(&["removeshard"])
    .admin_only(),
    command("startShardDraining", REMOVAL, |s, c| {
        doc(drain::start_shard_draining(s, c.cmd))
    }),
    command("shardDrainingStatus", REMOVAL, |s, c| {
        doc(drain::shard_draining_status(s, c.cmd))
    }),
    command("stopShardDraining", REMOVAL, |s, c| {
        doc(drain::stop_shard_draining(s, c.cmd))
    }),
    command("commitShardRemoval", REMOVAL, |s, c| {
        doc(drain::commit_shard_removal(s, c.cmd))
    }),
    command("movePrimary", REMOVAL, |s, c| {
        doc(drain::move_primary(s, c.cmd))
    })
    .aliases(&["moveprimary"]),
    // Resharding.
    command("refineCollectionShardKey", RESHARDING, |s, c| {
        doc(sharding::refine(s, c.cmd))
    })
    .admin_only(),
    command("reshardCollection", RESHARDING, |s, c| {
        doc(sharding::reshard(s, c.cmd))
    })
    .admin_only(),
    command("moveCollection", RESHARDING, |s, c| {
        doc(move_collection::move_collection(s, c.cmd))
    })
    .admin_only(),
    command("unshardCollection", RESHARDING, |s, c| {
        doc(move_collection::unshard_collection(s, c.cmd))
    })
    .admin_only(),
    command("abortReshardCollection", RESHARDING, |s, c| {
        doc(metadata::abort_reshard(s, c.cmd))
    })
    .admin_only(),
    command("commitReshardCollection", RESHARDING, |s, c| {
        doc(metadata::commit_reshard(s, c.cmd))
    })
    .admin_only(),
    // Sharding metadata.
    command("setAllowMigrations", METADATA, |s, c| {
        doc(metadata::set_allow_migrations(s, c.cmd))
    })
    .admin_only(),
    command("checkMetadataConsistency", METADATA, |s, c| {
        doc(metadata::check_metadata_consistency(s, c.db, c.cmd))
    }),
    // Transactions.
    command("commitTransaction", TRANSACTIONS, |s, _| {
        doc(transactions::commit(s))
    })
    .admin_only()
    .in_transaction(),
    command("abortTransaction", TRANSACTIONS, |s, _| {
        doc(transactions::abort_command(s))
    })
    .admin_only()
    .in_transaction(),
    // Query analysis.
    command("configureQueryAnalyzer", ANALYSIS, |s, c| {
        doc(query_analyzer::configure(s, c.cmd))
    })
    .admin_only(),
    command("analyzeShardKey", ANALYSIS, |s, c| {
        doc(analyze::analyze_shard_key::analyze(s, c.cmd))
    })
    .admin_only()
    .privileges(OnNamespace("analyzeShardKey")),
];

/// The command called `name` (by its name or an alias).
pub fn lookup(name: &str) -> Option<&'static Command> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// The namespace a command works on, for the command log (`command` is `None` when unknown).
pub fn namespace(
    command: Option<&Command>,
    name: &str,
    db: &str,
    cmd: &Document,
) -> Option<String> {
    let Some(Bson::String(first)) = cmd.get(name) else {
        return None;
    };
    match command {
        Some(c) if c.namespace == Namespace::Collection && c.name == name => {
            Some(format!("{db}.{first}"))
        }
        _ if first.contains('.') => Some(first.clone()),
        _ => None,
    }
}

#[cfg_attr(not(test), allow(dead_code))] // the docs table, checked by a test
fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "" }
}

#[cfg_attr(not(test), allow(dead_code))] // the docs table, checked by a test
/// The markdown table of every command, as `docs/serve.md` shows it.
pub fn docs_table() -> String {
    let mut out = String::from(
        "| Command | Aliases | Family | Admin only | In a transaction | Privileges (`--user-roles`) | Sampled | Log namespace |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for c in COMMANDS {
        let aliases: Vec<String> = c.aliases.iter().map(|a| format!("`{a}`")).collect();
        let ns = match c.namespace {
            Namespace::Collection => "`db.collection`",
            Namespace::Dotted => "",
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            c.name,
            aliases.join(", "),
            c.family,
            yes(c.admin_only),
            yes(c.in_transaction),
            c.privileges.describe(),
            c.sampled.describe(),
            ns,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "<!-- commands:start -->\n";
    const END: &str = "<!-- commands:end -->";

    /// `docs/serve.md`'s table of commands is the registry's; `SHARDTOP_BLESS=1` rewrites it.
    #[test]
    fn docs_table_matches_the_registry() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/serve.md");
        let text = std::fs::read_to_string(path).expect("docs/serve.md");
        let a = text.find(START).expect("the start marker") + START.len();
        let b = text.find(END).expect("the end marker");
        let want = docs_table();
        if std::env::var_os("SHARDTOP_BLESS").is_some() {
            let new = format!("{}{}{}", &text[..a], want, &text[b..]);
            std::fs::write(path, new).expect("write docs/serve.md");
            return;
        }
        assert_eq!(
            &text[a..b],
            want,
            "docs/serve.md's table of commands is stale: run SHARDTOP_BLESS=1 cargo test --lib docs_table"
        );
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut all: Vec<&str> = COMMANDS
            .iter()
            .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
