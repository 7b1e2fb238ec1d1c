//! `serve --user-roles`: every connection answers as if logged in as `shardtop@admin` with
//! those built-in roles. `connectionStatus` reports the user, the roles and their privileges;
//! the reads `watch` makes and the CRUD commands are checked against them and refused as a
//! server refuses them (Unauthorized 13, "not authorized on DB to execute command { … }",
//! `CommandInvocation::checkAuthorization` in src/mongo/db/commands.cpp).
//!
//! Simplified (docs/fidelity.md): there is no authentication handshake; the role privileges are
//! the subset of `cluster::privileges`; commands other than those checked here are allowed.

use bson::{Bson, Document};

use crate::cluster::MongoError;
use crate::cluster::privileges::{Resource, allows};
use crate::model::shell_text;
use crate::serve::dispatch::registry::Privileges;
use crate::serve::state::access::Access;

impl Access {
    /// Refuses `cmd` when the user lacks a privilege it needs.
    pub fn check(&self, name: &str, db: &str, cmd: &Document) -> Result<(), MongoError> {
        let privileges =
            crate::serve::dispatch::table::lookup(name).map_or(Privileges::None, |c| c.privileges);
        let needed = required(privileges, name, db, cmd);
        if needed
            .iter()
            .all(|(action, r)| allows(&self.privileges, action, r))
        {
            return Ok(());
        }
        Err(MongoError {
            code: 13,
            code_name: "Unauthorized",
            message: format!(
                "not authorized on {db} to execute command {}",
                shell_text::document(cmd)
            ),
        })
    }
}

fn ns(db: &str, cmd: &Document, name: &str) -> Resource {
    let coll = cmd.get_str(name).unwrap_or_default();
    Resource::Namespace(format!("{db}.{coll}"))
}

/// What a command needs: `(action, resource)` pairs (`authorization_checks.cpp` for find and
/// aggregate, each stage's `requiredPrivileges`, the balancer commands' `checkAuthForOperation`).
fn required(
    privileges: Privileges,
    name: &str,
    db: &str,
    cmd: &Document,
) -> Vec<(&'static str, Resource)> {
    match privileges {
        Privileges::OnCollection(action) => vec![(action, ns(db, cmd, name))],
        Privileges::FindSettings => vec![("find", Resource::Namespace("config.settings".into()))],
        // 8.0 s/commands/cluster_analyze_shard_key_cmd.cpp (`doCheckAuthorization`) for
        // analyzeShardKey.
        Privileges::OnNamespace(action) => vec![(action, ns("", cmd, name).trimmed())],
        Privileges::Aggregate => aggregate(db, cmd),
        Privileges::None => Vec::new(),
    }
}

fn aggregate(db: &str, cmd: &Document) -> Vec<(&'static str, Resource)> {
    let first = cmd
        .get_array("pipeline")
        .ok()
        .and_then(|p| p.first())
        .and_then(Bson::as_document)
        .and_then(|s| s.keys().next().cloned())
        .unwrap_or_default();
    let here = ns(db, cmd, "aggregate");
    match first.as_str() {
        "$currentOp" => vec![("inprog", Resource::Cluster)],
        "$shardedDataDistribution" => vec![("shardedDataDistribution", Resource::Cluster)],
        "$listSampledQueries" => vec![("listSampledQueries", Resource::Cluster)],
        "$collStats" => vec![("collStats", here)],
        "$changeStream" => vec![("changeStream", here.clone()), ("find", here)],
        _ => vec![("find", here)],
    }
}

impl Resource {
    /// `.db.coll` (from an empty database prefix) → `db.coll`.
    fn trimmed(self) -> Self {
        match self {
            Self::Namespace(n) => Self::Namespace(n.trim_start_matches('.').to_string()),
            Self::Cluster => Self::Cluster,
        }
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;

    #[test]
    fn a_monitor_may_not_ask_for_collection_balance_status() {
        let monitor = Access::parse("clusterMonitor").expect("a role");
        let ok = monitor.check("find", "config", &doc! {"find": "chunks", "$db": "config"});
        assert!(ok.is_ok());
        let cmd = doc! {"balancerCollectionStatus": "shop.orders", "$db": "admin"};
        let e = monitor
            .check("balancerCollectionStatus", "admin", &cmd)
            .expect_err("refused");
        assert_eq!(e.code, 13);
        assert_eq!(
            e.message,
            "not authorized on admin to execute command { balancerCollectionStatus: \"shop.orders\", $db: \"admin\" }"
        );
        let both = Access::parse("clusterMonitor@admin, enableSharding@admin").expect("roles");
        assert!(
            both.check("balancerCollectionStatus", "admin", &cmd)
                .is_ok()
        );
        assert!(Access::parse("superuser").is_err());
        let reader = Access::parse("readAnyDatabase").expect("a role");
        let config = doc! {"find": "chunks"};
        assert!(
            reader.check("find", "config", &config).is_err(),
            "not config"
        );
    }
}
