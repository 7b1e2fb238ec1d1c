//! What each read of `watch` needs from the user's privileges, which built-in roles grant it,
//! and whether a user's privileges (`connectionStatus` with `showPrivileges`) cover it.
//!
//! Sources (mongodb/mongo; see docs/privileges.md for the full table):
//! * `find`/`aggregate` on `config.*`: `find` on the exact namespace
//!   (`src/mongo/db/auth/authorization_checks.cpp`, `checkAuthForFind`, `getPrivilegesForAggregate`);
//! * `balancerStatus`: `find` on `config.settings`
//!   (`src/mongo/s/commands/cluster_control_balancer_cmd.cpp`);
//! * `balancerCollectionStatus`: `enableSharding` on the namespace
//!   (`src/mongo/s/commands/cluster_balancer_collection_status_cmd.cpp`) — not in clusterMonitor;
//! * `$currentOp` (mongos, `localOps: false`): `inprog` on the cluster
//!   (`src/mongo/db/pipeline/document_source_current_op.h`);
//! * `$shardedDataDistribution`, `$listSampledQueries`: their own actions on the cluster;
//!   `$collStats`: `collStats` on the namespace; `$changeStream`: `changeStream` and `find`;
//! * which roles grant them: `src/mongo/db/auth/builtin_roles.yml`. An "any normal resource"
//!   grant never covers `config` or `local` (`resource_pattern_search_list.h`), so
//!   `readAnyDatabase` cannot read `config.*`.

pub use crate::cluster::privileges::{Feeds, Pattern, Privilege, Resource, allows};

/// One read `watch` makes and what it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    /// The command as a person would name it: `find config.chunks`.
    pub read: String,
    pub actions: &'static [&'static str],
    pub resource: Resource,
    pub feeds: Feeds,
    /// The built-in roles that grant it.
    pub roles: &'static str,
}

const CONFIG_ROLES: &str =
    "clusterMonitor, clusterManager, clusterAdmin, backup, root, read@config";
const MONITOR_ROLES: &str = "clusterMonitor, clusterAdmin, root";

/// `find` (or `aggregate`) on `config.<coll>`.
pub fn config_find(coll: &str) -> Read {
    let feeds = match coll {
        "shards" | "collections" | "chunks" => Feeds::Everything,
        "settings" => Feeds::Balancer,
        "changelog" | "actionlog" => Feeds::Events,
        _ => Feeds::Shards,
    };
    Read {
        read: format!("find config.{coll}"),
        actions: &["find"],
        resource: Resource::Namespace(format!("config.{coll}")),
        feeds,
        roles: CONFIG_ROLES,
    }
}

pub fn balancer_status() -> Read {
    Read {
        read: "balancerStatus".into(),
        ..config_find("settings")
    }
}

pub fn balancer_collection_status(ns: &str) -> Read {
    Read {
        read: format!("balancerCollectionStatus {ns}"),
        actions: &["enableSharding"],
        resource: Resource::Namespace(ns.to_string()),
        feeds: Feeds::Balancer,
        roles: "enableSharding, clusterManager, clusterAdmin, root (not clusterMonitor)",
    }
}

pub fn current_op() -> Read {
    Read {
        read: "aggregate $currentOp".into(),
        actions: &["inprog"],
        resource: Resource::Cluster,
        feeds: Feeds::Balancer,
        roles: MONITOR_ROLES,
    }
}

/// `shardDrainingStatus` (8.2+): `removeShard` on the cluster
/// (`src/mongo/s/commands/cluster_shard_draining_status_cmd.cpp`, `doCheckAuthorization`).
pub fn shard_draining_status(shard: &str) -> Read {
    Read {
        read: format!("shardDrainingStatus {shard}"),
        actions: &["removeShard"],
        resource: Resource::Cluster,
        feeds: Feeds::Balancer,
        roles: "clusterManager, clusterAdmin, root (not clusterMonitor)",
    }
}

pub fn sharded_data_distribution() -> Read {
    Read {
        read: "aggregate $shardedDataDistribution".into(),
        actions: &["shardedDataDistribution"],
        resource: Resource::Cluster,
        feeds: Feeds::Shards,
        roles: MONITOR_ROLES,
    }
}

pub fn coll_stats(ns: &str) -> Read {
    Read {
        read: format!("aggregate $collStats {ns}"),
        actions: &["collStats"],
        resource: Resource::Namespace(ns.to_string()),
        feeds: Feeds::Shards,
        roles: "clusterMonitor, read, readAnyDatabase, dbAdmin, root",
    }
}

/// `$listClusterCatalog` on `admin` (8.0.10+, 8.1+): `listClusterCatalog` on the cluster
/// (mongo `src/mongo/db/pipeline/document_source_list_cluster_catalog.h`, `LiteParsed`);
/// clusterMonitor grants it (jstest `sharding/list_cluster_catalog_privileges.js`).
pub fn list_cluster_catalog() -> Read {
    Read {
        read: "aggregate $listClusterCatalog".into(),
        actions: &["listClusterCatalog"],
        resource: Resource::Cluster,
        feeds: Feeds::Shards,
        roles: MONITOR_ROLES,
    }
}

pub fn list_sampled_queries() -> Read {
    Read {
        read: "aggregate $listSampledQueries".into(),
        actions: &["listSampledQueries"],
        resource: Resource::Cluster,
        feeds: Feeds::Heat,
        roles: MONITOR_ROLES,
    }
}

pub fn change_stream(ns: &str) -> Read {
    Read {
        read: format!("aggregate $changeStream {ns}"),
        actions: &["changeStream", "find"],
        resource: Resource::Namespace(ns.to_string()),
        feeds: Feeds::Heat,
        roles: "read, readWrite, readAnyDatabase, root (not clusterMonitor)",
    }
}

/// What the cluster reads depend on.
pub struct Plan<'a> {
    /// The sharded collections watched.
    pub collections: &'a [String],
    /// The tracked unsharded collections (8.0+ `unsplittable`): `$collStats` each.
    pub unsplittable: &'a [String],
    /// `$shardedDataDistribution` (6.0+) rather than `$collStats` per collection.
    pub sharded_data_distribution: bool,
    /// `$listSampledQueries` (7.0+).
    pub sampled_queries: bool,
    /// Change streams (`--heat changestream`, or `auto`, which uses them where granted).
    pub change_streams: bool,
    /// `shardDrainingStatus` of each draining shard (8.2+).
    pub shard_draining_status: bool,
    /// `$listClusterCatalog` (8.0.10+, 8.1+): the untracked unsharded collections.
    pub list_cluster_catalog: bool,
}

/// Every read of one poll, in the order the poll makes them.
pub fn reads(plan: &Plan) -> Vec<Read> {
    let mut out: Vec<Read> = [
        "shards",
        "collections",
        "chunks",
        "tags",
        "settings",
        "databases",
    ]
    .into_iter()
    .map(config_find)
    .collect();
    if plan.list_cluster_catalog {
        out.push(list_cluster_catalog());
    }
    if plan.sharded_data_distribution {
        out.push(sharded_data_distribution());
    } else {
        out.extend(plan.collections.iter().map(|ns| coll_stats(ns)));
    }
    out.extend(plan.unsplittable.iter().map(|ns| coll_stats(ns)));
    out.push(config_find("changelog"));
    out.push(config_find("actionlog"));
    out.push(balancer_status());
    out.extend(
        plan.collections
            .iter()
            .map(|ns| balancer_collection_status(ns)),
    );
    out.push(current_op());
    if plan.shard_draining_status {
        out.push(shard_draining_status("(each draining shard)"));
    }
    if plan.sampled_queries {
        out.push(list_sampled_queries());
    }
    if plan.change_streams {
        out.extend(
            (plan.collections.iter())
                .filter(|ns| super::change_heat::streamable(ns))
                .map(|ns| change_stream(ns)),
        );
    }
    out
}

/// Whether the privileges allow every action of the read.
pub fn allowed(read: &Read, privileges: &[Privilege]) -> bool {
    read.actions
        .iter()
        .all(|a| allows(privileges, a, &read.resource))
}

/// How a refused read reads on screen: what it needs and who grants it.
pub fn needs(read: &Read) -> String {
    format!(
        "{}: not authorized — needs {} on {}; granted by {}",
        read.read,
        read.actions.join(" + "),
        read.resource,
        read.roles
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{Document, doc};

    fn privilege(d: &Document) -> Privilege {
        Privilege::parse(d).expect("a privilege")
    }

    #[test]
    fn resources_match_as_the_server_searches_them() {
        let any_normal =
            privilege(&doc! {"resource": {"db": "", "collection": ""}, "actions": ["find"]});
        let config_db =
            privilege(&doc! {"resource": {"db": "config", "collection": ""}, "actions": ["find"]});
        let cluster = privilege(&doc! {"resource": {"cluster": true}, "actions": ["inprog"]});
        let ns = |s: &str| Resource::Namespace(s.into());
        assert!(
            !any_normal.covers(&ns("config.chunks")),
            "readAnyDatabase cannot read config"
        );
        assert!(any_normal.covers(&ns("shop.orders")));
        assert!(config_db.covers(&ns("config.chunks")));
        assert!(!config_db.covers(&ns("config.system.sessions")));
        assert!(cluster.covers(&Resource::Cluster));
        assert!(!cluster.covers(&ns("config.chunks")));
        let plan = Plan {
            collections: &["shop.orders".to_string()],
            unsplittable: &["shop.logs".to_string()],
            sharded_data_distribution: true,
            sampled_queries: false,
            change_streams: false,
            shard_draining_status: true,
            list_cluster_catalog: true,
        };
        let reads = reads(&plan);
        let status = reads
            .iter()
            .find(|r| r.read == "balancerCollectionStatus shop.orders")
            .expect("listed");
        let monitor = [config_db, cluster];
        assert!(!allowed(status, &monitor));
        assert!(allowed(&reads[0], &monitor));
        assert!(needs(status).contains("needs enableSharding on shop.orders"));
        assert!(
            reads
                .iter()
                .any(|r| r.read == "aggregate $collStats shop.logs")
        );
        let drain = reads
            .iter()
            .find(|r| r.read.starts_with("shardDrainingStatus"))
            .expect("listed on 8.2+");
        assert!(
            !allowed(drain, &monitor),
            "clusterMonitor lacks removeShard"
        );
        let catalog = reads
            .iter()
            .find(|r| r.read == "aggregate $listClusterCatalog")
            .expect("listed on 8.0.10+");
        let monitor_role =
            crate::cluster::privileges::built_in_role("clusterMonitor", "admin").expect("known");
        assert!(allowed(catalog, &monitor_role), "clusterMonitor grants it");
    }
}
