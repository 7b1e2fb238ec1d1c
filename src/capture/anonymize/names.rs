//! Stable pseudonyms for the names in a capture (`capture --anonymize`): databases (`db_1`),
//! collections (`coll_1`), shards (`shard_1`), replica sets (`rs_1`), hosts (`host-1.invalid`,
//! the port kept), zones (`zone_1`) and users (`user_1`), numbered in the order they are first
//! seen. The same name gets the same pseudonym everywhere in the file, alone or inside a
//! namespace (`db.coll`), a shard's connection string (`rs/host:port,…`) or a server's words.
//!
//! What MongoDB names itself is kept: the `admin`, `config` and `local` databases and their
//! collections, `system.*` collections (the name after `system.buckets.` is replaced), and the
//! config server's shard when it is a shard (`config`, mongo repo
//! `src/mongo/s/sharding_state.h`'s `ShardId::kConfigServerId`).
//!
//! Owns: the pseudonym tables and replacing names in one string. May not touch: which fields of
//! which documents hold names (that is the anonymizer's walk).

use std::collections::HashMap;

/// The databases MongoDB owns (`NamespaceString`'s `kAdminDb`, `kConfigDb`, `kLocalDb`, mongo repo
/// `src/mongo/db/namespace_string.h`): kept, with every collection in them.
const OWN_DATABASES: &[&str] = &["admin", "config", "local"];

/// One kind of name and its pseudonyms.
#[derive(Debug, Default)]
struct Table {
    prefix: &'static str,
    suffix: &'static str,
    to: HashMap<String, String>,
}

impl Table {
    fn new(prefix: &'static str, suffix: &'static str) -> Self {
        Self {
            prefix,
            suffix,
            to: HashMap::new(),
        }
    }

    fn add(&mut self, name: &str) -> String {
        let n = self.to.len() + 1;
        let (prefix, suffix) = (self.prefix, self.suffix);
        (self.to.entry(name.to_string()))
            .or_insert_with(|| format!("{prefix}{n}{suffix}"))
            .clone()
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.to.get(name).map(String::as_str)
    }

    /// Whether `s` has this table's shape of pseudonym (`db_12`, `host-3.invalid`).
    fn gives(&self, s: &str) -> bool {
        s.strip_prefix(self.prefix)
            .and_then(|r| r.strip_suffix(self.suffix))
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n >= 1 && n <= self.to.len())
    }
}

/// Every name seen and its pseudonym.
#[derive(Debug)]
pub struct Names {
    dbs: Table,
    /// Collections by their bare name (the same bare name in two databases: one pseudonym).
    colls: Table,
    shards: Table,
    sets: Table,
    hosts: Table,
    zones: Table,
    users: Table,
    /// Words that are neither names nor MongoDB's (`x_1`).
    words: Table,
    /// Every namespace seen whole → its pseudonym (found whole in free text even when its
    /// collection's name is one of MongoDB's words).
    namespaces: HashMap<String, String>,
}

impl Default for Names {
    fn default() -> Self {
        Self {
            dbs: Table::new("db_", ""),
            colls: Table::new("coll_", ""),
            shards: Table::new("shard_", ""),
            sets: Table::new("rs_", ""),
            hosts: Table::new("host-", ".invalid"),
            zones: Table::new("zone_", ""),
            users: Table::new("user_", ""),
            words: Table::new("x_", ""),
            namespaces: HashMap::new(),
        }
    }
}

/// Whether `db` is one of MongoDB's own databases (kept).
pub fn own_db(db: &str) -> bool {
    OWN_DATABASES.contains(&db)
}

impl Names {
    /// A database's pseudonym (MongoDB's own databases and the empty name: kept).
    pub fn db(&mut self, db: &str) -> String {
        if own_db(db) || db.is_empty() {
            db.to_string()
        } else {
            self.dbs.add(db)
        }
    }

    /// A collection's pseudonym in `db` (kept in MongoDB's own databases; `system.*` kept, the
    /// name after `system.buckets.` replaced).
    pub fn coll(&mut self, db: &str, coll: &str) -> String {
        let own = coll.split('.').all(super::vocabulary::is_safe);
        if coll.is_empty() || own_db(db) && own {
            return coll.to_string();
        }
        // A name in MongoDB's own database that is not MongoDB's (`config.cache.chunks.<ns>`).
        if own_db(db) {
            return self.colls.add(coll);
        }
        if let Some(view) = coll.strip_prefix("system.buckets.") {
            return format!("system.buckets.{}", self.colls.add(view));
        }
        // MongoDB's own `system.*` collections (`system.views`, `system.js`, …); any other
        // name after `system.` is replaced.
        if let Some(rest) = coll.strip_prefix("system.") {
            if own {
                return coll.to_string();
            }
            return format!("system.{}", self.colls.add(rest));
        }
        self.colls.add(coll)
    }

    /// A namespace's pseudonym (`db.coll`; a name without a dot is a database's).
    pub fn ns(&mut self, ns: &str) -> String {
        match ns.split_once('.') {
            Some((db, coll)) => {
                let coll = self.coll(db, coll);
                let p = format!("{}.{coll}", self.db(db));
                if p != ns && !self.namespaces.contains_key(ns) {
                    self.namespaces.insert(ns.to_string(), p.clone());
                }
                p
            }
            None => self.db(ns),
        }
    }

    /// A shard's pseudonym (the config server's own shard, `config`, kept).
    pub fn shard(&mut self, shard: &str) -> String {
        if shard == "config" || shard.is_empty() {
            shard.to_string()
        } else {
            self.shards.add(shard)
        }
    }

    /// A replica set's pseudonym.
    pub fn set(&mut self, set: &str) -> String {
        if set.is_empty() {
            String::new()
        } else {
            self.sets.add(set)
        }
    }

    /// A host's pseudonym, `host[:port]` or a host name alone (the port kept).
    pub fn host(&mut self, host: &str) -> String {
        if host.is_empty() {
            return String::new();
        }
        // `[::1]:27017`, `h:27017`, `h`.
        let (name, port) = match host.rsplit_once(':') {
            Some((n, p)) if p.bytes().all(|b| b.is_ascii_digit()) && !p.is_empty() => (n, Some(p)),
            _ => (host, None),
        };
        let name = self.hosts.add(name);
        match port {
            Some(p) => format!("{name}:{p}"),
            None => name,
        }
    }

    /// A connection string's pseudonym: `rs/h1:p,h2:p` or `h1:p,h2:p`.
    pub fn connection(&mut self, s: &str) -> String {
        let (set, hosts) = match s.split_once('/') {
            Some((set, hosts)) => (Some(set), hosts),
            None => (None, s),
        };
        let hosts: Vec<String> = hosts.split(',').map(|h| self.host(h.trim())).collect();
        match set {
            Some(set) => format!("{}/{}", self.set(set), hosts.join(",")),
            None => hosts.join(","),
        }
    }

    /// A zone's pseudonym.
    pub fn zone(&mut self, zone: &str) -> String {
        self.zones.add(zone)
    }

    /// A user's pseudonym.
    pub fn user(&mut self, user: &str) -> String {
        self.users.add(user)
    }

    /// A stand-in for a word that is neither a name seen nor a word MongoDB uses (`x_1`, …): the
    /// same word gets the same stand-in everywhere.
    pub fn unknown(&mut self, word: &str) -> String {
        self.words.add(word)
    }

    /// Whether `db` is a database seen.
    pub fn is_db(&self, db: &str) -> bool {
        self.dbs.get(db).is_some()
    }

    /// Whether `s` is a pseudonym or stand-in this table gave.
    pub fn is_pseudonym(&self, s: &str) -> bool {
        [
            &self.dbs,
            &self.colls,
            &self.shards,
            &self.sets,
            &self.hosts,
        ]
        .iter()
        .chain([&self.zones, &self.users, &self.words].iter())
        .any(|t| t.gives(s))
    }

    /// The tables of names, in the order a whole value is looked up: database, shard, replica
    /// set, host, zone, user, collection.
    fn tables(&self) -> [&Table; 7] {
        [
            &self.dbs,
            &self.shards,
            &self.sets,
            &self.hosts,
            &self.zones,
            &self.users,
            &self.colls,
        ]
    }

    /// The pseudonym of `s` when `s` is, whole, a name seen: a database, shard, replica set,
    /// host, zone, user or collection (in that order).
    pub fn lookup(&self, s: &str) -> Option<String> {
        self.tables()
            .iter()
            .find_map(|t| t.get(s))
            .map(str::to_string)
    }

    /// Every name seen and its pseudonym, for finding names inside free text.
    pub fn all(&self) -> impl Iterator<Item = (&str, &str)> {
        self.tables()
            .into_iter()
            .flat_map(|t| t.to.iter())
            .chain(self.namespaces.iter())
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .filter(|(k, v)| k != v)
    }

    /// How many names are known (the free-text matcher is rebuilt when it changes).
    pub fn count(&self) -> usize {
        self.tables().iter().map(|t| t.to.len()).sum::<usize>() + self.namespaces.len()
    }

    /// Every name replaced, for a check: each original name that differs from its pseudonym.
    pub fn originals(&self) -> Vec<String> {
        self.tables()
            .iter()
            .flat_map(|t| t.to.iter())
            .filter(|(k, v)| k != v)
            .map(|(k, _)| k.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_get_stable_pseudonyms_everywhere() {
        let mut n = Names::default();
        assert_eq!(n.ns("shop.orders"), "db_1.coll_1");
        assert_eq!(n.ns("shop.orders"), "db_1.coll_1");
        assert_eq!(n.db("shop"), "db_1");
        assert_eq!(n.ns("config.system.sessions"), "config.system.sessions");
        assert_eq!(
            n.ns("shop.system.buckets.ticks"),
            "db_1.system.buckets.coll_2"
        );
        assert_eq!(n.ns("shop.ticks"), "db_1.coll_2");
        assert_eq!(
            n.connection("rsA/db1.example.net:27018,db2.example.net:27018"),
            "rs_1/host-1.invalid:27018,host-2.invalid:27018"
        );
        assert_eq!(n.host("db1.example.net"), "host-1.invalid");
        assert_eq!(n.shard("shardA"), "shard_1");
        assert_eq!(n.shard("config"), "config");
        assert_eq!(n.lookup("shardA").as_deref(), Some("shard_1"));
        assert_eq!(n.lookup("orders").as_deref(), Some("coll_1"));
        assert!(n.is_pseudonym("coll_2") && !n.is_pseudonym("coll_9"));
        assert_eq!(n.unknown("zq"), "x_1");
        assert!(n.is_pseudonym("x_1"));
        let mut originals = n.originals();
        originals.sort();
        assert!(originals.contains(&"db1.example.net".to_string()));
        assert!(!originals.contains(&"config".to_string()));
    }
}
