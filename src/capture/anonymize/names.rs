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
        if own_db(db) || coll.is_empty() {
            return coll.to_string();
        }
        if let Some(view) = coll.strip_prefix("system.buckets.") {
            return format!("system.buckets.{}", self.colls.add(view));
        }
        if coll.starts_with("system.") {
            return coll.to_string();
        }
        self.colls.add(coll)
    }

    /// A namespace's pseudonym (`db.coll`; a name without a dot is a database's).
    pub fn ns(&mut self, ns: &str) -> String {
        match ns.split_once('.') {
            Some((db, coll)) => {
                let coll = self.coll(db, coll);
                format!("{}.{coll}", self.db(db))
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

    /// A value that may hold names where MongoDB's own words are too (a command's argument, a
    /// document's field): each word (a run of letters, digits, `_`, `-`, `.`, `$`) that is a
    /// database, shard, replica set or host seen is replaced by its pseudonym, and a word
    /// `db.rest` of a database seen is a namespace (its collection gets a pseudonym if it has
    /// none); everything else is kept.
    pub fn words(&mut self, text: &str) -> String {
        self.replace(text, false)
    }

    /// Free text (a server's message, a log entry's words): as [`Names::words`], and also every
    /// word that is a collection, zone or user seen.
    pub fn text(&mut self, text: &str) -> String {
        self.replace(text, true)
    }

    fn replace(&mut self, text: &str, free: bool) -> String {
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        for c in text.chars() {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$') {
                word.push(c);
            } else {
                if !word.is_empty() {
                    out.push_str(&self.word(&word, free));
                    word.clear();
                }
                out.push(c);
            }
        }
        if !word.is_empty() {
            out.push_str(&self.word(&word, free));
        }
        out
    }

    fn word(&mut self, w: &str, free: bool) -> String {
        // A sentence's full stop is not part of a name.
        if let Some(w) = w.strip_suffix('.') {
            return format!("{}.", self.word(w, free));
        }
        for t in [&self.dbs, &self.shards, &self.sets, &self.hosts] {
            if let Some(p) = t.get(w) {
                return p.to_string();
            }
        }
        if free {
            for t in [&self.colls, &self.zones, &self.users] {
                if let Some(p) = t.get(w) {
                    return p.to_string();
                }
            }
        }
        if let Some((db, rest)) = w.split_once('.')
            && self.dbs.get(db).is_some()
        {
            return self.ns(&format!("{db}.{rest}"));
        }
        w.to_string()
    }

    /// Every name replaced, for a check: each original name that differs from its pseudonym.
    pub fn originals(&self) -> Vec<String> {
        [
            &self.dbs,
            &self.colls,
            &self.shards,
            &self.sets,
            &self.hosts,
            &self.zones,
            &self.users,
        ]
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
        assert_eq!(
            n.words("not authorized on shop to execute command { find: \"orders\" } on shardA."),
            "not authorized on db_1 to execute command { find: \"orders\" } on shard_1."
        );
        assert_eq!(
            n.text("not authorized on shop to execute command { find: \"orders\" } on shardA."),
            "not authorized on db_1 to execute command { find: \"coll_1\" } on shard_1."
        );
        assert_eq!(
            n.words("moved shop.orders from rsA/db1.example.net:27018"),
            "moved db_1.coll_1 from rs_1/host-1.invalid:27018"
        );
        // A collection first seen in words gets its pseudonym there.
        assert_eq!(n.words("shop.carts"), "db_1.coll_3");
        let mut originals = n.originals();
        originals.sort();
        assert!(originals.contains(&"db1.example.net".to_string()));
        assert!(!originals.contains(&"config".to_string()));
    }
}
