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

use bson::{Bson, Document};

/// A resource a privilege is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    Cluster,
    /// An exact namespace.
    Namespace(String),
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Cluster => f.write_str("the cluster"),
            Self::Namespace(ns) => f.write_str(ns),
        }
    }
}

/// The part of the view a read feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feeds {
    /// Nothing shows without it.
    Everything,
    Shards,
    Balancer,
    Events,
    Heat,
}

impl Feeds {
    pub fn label(self) -> &'static str {
        match self {
            Self::Everything => "the whole view",
            Self::Shards => "shard data sizes",
            Self::Balancer => "balancer pane",
            Self::Events => "event log",
            Self::Heat => "write heat",
        }
    }
}

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

const CONFIG_ROLES: &str = "clusterMonitor, clusterManager, clusterAdmin, backup, root, read@config";

fn config_read(what: &str, coll: &str, feeds: Feeds) -> Read {
    Read {
        read: format!("{what} config.{coll}"),
        actions: &["find"],
        resource: Resource::Namespace(format!("config.{coll}")),
        feeds,
        roles: CONFIG_ROLES,
    }
}

/// What the cluster reads depend on.
pub struct Plan<'a> {
    /// The sharded collections watched.
    pub collections: &'a [String],
    /// `$shardedDataDistribution` (6.0+) rather than `$collStats` per collection.
    pub sharded_data_distribution: bool,
    /// `$listSampledQueries` (7.0+).
    pub sampled_queries: bool,
    /// Change streams (`--heat changestream`).
    pub change_streams: bool,
}

/// Every read of one poll, in the order the poll makes them.
pub fn reads(plan: &Plan) -> Vec<Read> {
    let mut out: Vec<Read> = ["shards", "collections", "chunks"]
        .into_iter()
        .map(|c| config_read("find", c, Feeds::Everything))
        .collect();
    out.push(config_read("find", "tags", Feeds::Shards));
    out.push(config_read("find", "settings", Feeds::Balancer));
    out.push(config_read("find", "databases", Feeds::Shards));
    if plan.sharded_data_distribution {
        out.push(cluster_read("aggregate $shardedDataDistribution", "shardedDataDistribution", Feeds::Shards, "clusterMonitor, clusterAdmin, root"));
    } else {
        for ns in plan.collections {
            out.push(Read {
                read: format!("aggregate $collStats {ns}"),
                actions: &["collStats"],
                resource: Resource::Namespace(ns.clone()),
                feeds: Feeds::Shards,
                roles: "clusterMonitor, read, readAnyDatabase, dbAdmin, root",
            });
        }
    }
    out.push(config_read("find", "changelog", Feeds::Events));
    out.push(config_read("find", "actionlog", Feeds::Events));
    out.push(Read {
        read: "balancerStatus".into(),
        ..config_read("find", "settings", Feeds::Balancer)
    });
    for ns in plan.collections {
        out.push(Read {
            read: format!("balancerCollectionStatus {ns}"),
            actions: &["enableSharding"],
            resource: Resource::Namespace(ns.clone()),
            feeds: Feeds::Balancer,
            roles: "enableSharding, clusterManager, clusterAdmin, root (not clusterMonitor)",
        });
    }
    out.push(cluster_read("aggregate $currentOp", "inprog", Feeds::Balancer, "clusterMonitor, clusterAdmin, root"));
    if plan.sampled_queries {
        out.push(cluster_read("aggregate $listSampledQueries", "listSampledQueries", Feeds::Heat, "clusterMonitor, clusterAdmin, root"));
    }
    if plan.change_streams {
        for ns in plan.collections {
            out.push(Read {
                read: format!("aggregate $changeStream {ns}"),
                actions: &["changeStream", "find"],
                resource: Resource::Namespace(ns.clone()),
                feeds: Feeds::Heat,
                roles: "read, readWrite, readAnyDatabase, root (not clusterMonitor)",
            });
        }
    }
    out
}

fn cluster_read(read: &str, action: &'static str, feeds: Feeds, roles: &'static str) -> Read {
    let actions: &'static [&'static str] = match action {
        "shardedDataDistribution" => &["shardedDataDistribution"],
        "listSampledQueries" => &["listSampledQueries"],
        _ => &["inprog"],
    };
    Read {
        read: read.into(),
        actions,
        resource: Resource::Cluster,
        feeds,
        roles,
    }
}

/// One privilege of `connectionStatus`'s `authenticatedUserPrivileges`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Privilege {
    pub resource: Pattern,
    pub actions: Vec<String>,
}

/// A privilege's resource as the server writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    AnyResource,
    Cluster,
    /// `{db, collection}`; an empty string is "any".
    Collection { db: String, collection: String },
}

impl Privilege {
    /// Reads one privilege document; `None` for shapes this check does not know.
    pub fn parse(d: &Document) -> Option<Self> {
        let r = d.get_document("resource").ok()?;
        let resource = if r.get_bool("anyResource").unwrap_or(false) {
            Pattern::AnyResource
        } else if r.get_bool("cluster").unwrap_or(false) {
            Pattern::Cluster
        } else {
            Pattern::Collection {
                db: r.get_str("db").ok()?.to_string(),
                collection: r.get_str("collection").ok()?.to_string(),
            }
        };
        let actions = d
            .get_array("actions")
            .ok()?
            .iter()
            .filter_map(Bson::as_str)
            .map(str::to_string)
            .collect();
        Some(Self { resource, actions })
    }

    /// Whether this privilege's resource matches `r` (the server's search list).
    pub fn covers(&self, r: &Resource) -> bool {
        match (&self.resource, r) {
            (Pattern::AnyResource, _) => true,
            (Pattern::Cluster, Resource::Cluster) => true,
            (Pattern::Collection { db, collection }, Resource::Namespace(ns)) => {
                let (d, c) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
                let normal = !c.starts_with("system.");
                let special_db = d == "config" || d == "local";
                match (db.as_str(), collection.as_str()) {
                    ("", "") => normal && !special_db,
                    ("", coll) => coll == c,
                    (db, "") => db == d && normal,
                    (db, coll) => db == d && coll == c,
                }
            }
            _ => false,
        }
    }
}

/// Whether the privileges allow every action of the read.
pub fn allowed(read: &Read, privileges: &[Privilege]) -> bool {
    read.actions.iter().all(|a| {
        privileges
            .iter()
            .any(|p| p.covers(&read.resource) && p.actions.iter().any(|x| x == a))
    })
}

/// How a refused read reads on screen: what it needs and who grants it.
pub fn needs(read: &Read) -> String {
    format!(
        "{}: not authorized — needs {} on {} (granted by {})",
        read.read,
        read.actions.join(" + "),
        read.resource,
        read.roles
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn privilege(d: Document) -> Privilege {
        Privilege::parse(&d).expect("a privilege")
    }

    #[test]
    fn resources_match_as_the_server_searches_them() {
        let any_normal = privilege(doc! {"resource": {"db": "", "collection": ""}, "actions": ["find"]});
        let config_db = privilege(doc! {"resource": {"db": "config", "collection": ""}, "actions": ["find"]});
        let cluster = privilege(doc! {"resource": {"cluster": true}, "actions": ["inprog"]});
        let ns = |s: &str| Resource::Namespace(s.into());
        assert!(!any_normal.covers(&ns("config.chunks")), "readAnyDatabase cannot read config");
        assert!(any_normal.covers(&ns("shop.orders")));
        assert!(config_db.covers(&ns("config.chunks")));
        assert!(!config_db.covers(&ns("config.system.sessions")));
        assert!(cluster.covers(&Resource::Cluster));
        assert!(!cluster.covers(&ns("config.chunks")));
        let plan = Plan {
            collections: &["shop.orders".to_string()],
            sharded_data_distribution: true,
            sampled_queries: false,
            change_streams: false,
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
    }
}
