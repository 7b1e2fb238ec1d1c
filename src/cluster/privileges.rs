//! MongoDB's authorization as far as shardtop needs it: privileges (actions on a resource),
//! how a privilege's resource pattern matches a namespace or the cluster, and the privileges of
//! the built-in roles for the actions of the reads `watch` makes and of `serve`'s checked
//! commands.
//!
//! Sources (mongodb/mongo): the resource search list is
//! `src/mongo/db/auth/resource_pattern_search_list.h` (an "any normal resource" grant never
//! covers `config` or `local`); the roles are `src/mongo/db/auth/builtin_roles.yml`. The role
//! privileges here are a subset: only the actions named in [`KNOWN_ACTIONS`].

use bson::{Bson, Document, doc};

/// The part of a cluster's state a read feeds (the pane that shows it).
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
    /// The name a trace keeps (`shards`, `balancer`, `events`, `heat`, `everything`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Everything => "everything",
            Self::Shards => "shards",
            Self::Balancer => "balancer",
            Self::Events => "events",
            Self::Heat => "heat",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Everything,
            Self::Shards,
            Self::Balancer,
            Self::Events,
            Self::Heat,
        ]
        .into_iter()
        .find(|f| f.as_str() == s)
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Everything => "the whole view",
            Self::Shards => "shards pane",
            Self::Balancer => "balancer pane",
            Self::Events => "event log",
            Self::Heat => "write heat",
        }
    }
}

/// A read a source could not make (refused, failed, not in a capture) or a note on one: the
/// part of the state it feeds, and what it needs in words. `live` reports them, a trace and a
/// capture keep them, the view shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedRead {
    pub feeds: Feeds,
    pub text: String,
}

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
    Collection {
        db: String,
        collection: String,
    },
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
            (Pattern::AnyResource, _) | (Pattern::Cluster, Resource::Cluster) => true,
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

/// Whether one of `privileges` allows `action` on `resource`.
pub fn allows(privileges: &[Privilege], action: &str, resource: &Resource) -> bool {
    privileges
        .iter()
        .any(|p| p.covers(resource) && p.actions.iter().any(|x| x == action))
}

impl Privilege {
    fn new(resource: Pattern, actions: &[&str]) -> Self {
        Self {
            resource,
            actions: actions.iter().map(|a| (*a).to_string()).collect(),
        }
    }

    /// The privilege as `connectionStatus` writes it.
    pub fn to_document(&self) -> Document {
        let resource = match &self.resource {
            Pattern::AnyResource => doc! {"anyResource": true},
            Pattern::Cluster => doc! {"cluster": true},
            Pattern::Collection { db, collection } => doc! {"db": db, "collection": collection},
        };
        doc! {"resource": resource, "actions": self.actions.clone()}
    }
}

/// The actions the built-in roles below are described by.
pub const KNOWN_ACTIONS: &[&str] = &[
    "find",
    "insert",
    "update",
    "remove",
    "collStats",
    "changeStream",
    "listCollections",
    "listIndexes",
    "enableSharding",
    "analyzeShardKey",
    "inprog",
    "shardedDataDistribution",
    "listSampledQueries",
    "serverStatus",
    "listShards",
    "listDatabases",
    "listClusterCatalog",
];

/// The `read` role's actions (`builtin_roles.yml`, the read set, abridged to known actions).
const READ: &[&str] = &[
    "changeStream",
    "collStats",
    "find",
    "listCollections",
    "listIndexes",
];
const READ_WRITE: &[&str] = &[
    "changeStream",
    "collStats",
    "find",
    "listCollections",
    "listIndexes",
    "insert",
    "update",
    "remove",
];
/// What `enableSharding` and `clusterManager` grant on every normal namespace (`builtin_roles.yml`,
/// abridged to known actions).
const SHARDING: &[&str] = &["analyzeShardKey", "enableSharding"];

fn on_db(db: &str, actions: &[&str]) -> Privilege {
    Privilege::new(
        Pattern::Collection {
            db: db.to_string(),
            collection: String::new(),
        },
        actions,
    )
}

fn any_normal(actions: &[&str]) -> Privilege {
    on_db("", actions)
}

/// The built-in roles `role@db` grants (inherited roles included), or `None` for a role this
/// model does not know. `read@config` is how clusterMonitor and clusterManager read `config.*`.
pub fn built_in_role(role: &str, db: &str) -> Option<Vec<Privilege>> {
    let cluster = |a: &[&str]| Privilege::new(Pattern::Cluster, a);
    Some(match (role, db) {
        ("read", db) => vec![on_db(db, READ)],
        ("readWrite", db) => vec![on_db(db, READ_WRITE)],
        ("enableSharding", _) => vec![any_normal(SHARDING)],
        ("readAnyDatabase", "admin") => vec![any_normal(READ), cluster(&["listDatabases"])],
        ("readWriteAnyDatabase", "admin") => {
            vec![any_normal(READ_WRITE), cluster(&["listDatabases"])]
        }
        // `listClusterCatalog` (8.0.10+, 8.1+): jstest
        // `sharding/list_cluster_catalog_privileges.js` runs it as clusterMonitor.
        ("clusterMonitor", "admin") => vec![
            cluster(&[
                "inprog",
                "listClusterCatalog",
                "listDatabases",
                "listSampledQueries",
                "listShards",
                "serverStatus",
                "shardedDataDistribution",
            ]),
            any_normal(&["collStats"]),
            on_db("config", READ),
            on_db("local", READ),
        ],
        ("clusterManager", "admin") => vec![
            cluster(&["listShards"]),
            any_normal(SHARDING),
            on_db("config", &["enableSharding", "insert", "update", "remove"]),
            on_db("config", READ),
        ],
        ("clusterAdmin", "admin") => [
            built_in_role("clusterMonitor", "admin")?,
            built_in_role("clusterManager", "admin")?,
        ]
        .concat(),
        ("root", "admin") => [
            built_in_role("clusterAdmin", "admin")?,
            built_in_role("readWriteAnyDatabase", "admin")?,
        ]
        .concat(),
        _ => return None,
    })
}
