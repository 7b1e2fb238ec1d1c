//! `capture --anonymize`: a capture rewritten so that it can be shared. It is built by
//! allowlist: every string left is one of MongoDB's own words ([`vocabulary`]: field names,
//! command names, states, error code names, the words of its messages), a number, or a
//! pseudonym; everything else is replaced. Counts, sizes, times, versions and the order of the
//! key space survive (docs/capture.md#anonymize).
//!
//! Names (databases, collections, shards, replica sets, hosts, zones, users) are learned from the
//! fields that hold them ([`learn`], [`fields`]) and become stable pseudonyms ([`names`]) as whole
//! values wherever they are — a name's field, a namespace, an `_id`, a field name, free text
//! ([`text`]); any other word becomes a stand-in (`x_1`). Shard-key values in chunk bounds, zone
//! bounds, the changelog's bounds and migrations in flight become order-preserving stand-ins of
//! the same BSON type ([`stand_ins`]). What carries a client's address, session, software or
//! comment, and users' documents and queries, is dropped from the server's answers
//! ([`fields::DROPPED`]). The commands are rewritten with the same pseudonyms, so `open` runs the
//! poller of `watch` over the anonymized capture as it ran over the real one.
//!
//! Owns: the rewriting walk over a capture's documents. May not touch: the network, the file's
//! bytes (`file`), what a poll makes of the documents (`live`).

use std::collections::HashMap;

use bson::{Bson, Document};

use super::{Capture, CapturedRead, Outcome};

pub mod fields;
mod learn;
pub mod names;
pub mod stand_ins;
pub mod text;
pub mod vocabulary;

pub use fields::REMOVED;
use fields::{
    BOUND_FIELDS, DATA_STAGES, DROPPED, HOST_FIELDS, NS_FIELDS, SET_FIELDS, TEXT_FIELDS,
    USER_FIELDS, ZONE_FIELDS,
};
use names::{Names, own_db};
use stand_ins::StandIns;
use text::Matcher;

/// `capture` anonymized (see the module doc); `capture` itself is not changed.
pub fn anonymize(capture: &Capture) -> Capture {
    let mut a = Anonymizer::default();
    for r in &capture.reads {
        a.learn(r);
    }
    // The names are learned from the fields that hold them, in the order of the file.
    for r in &capture.reads {
        a.learn_names(r);
    }
    // Every key value seen first, then their stand-ins by rank.
    for r in &capture.reads {
        a.read(r);
    }
    a.keys.finish();
    a.collecting = false;
    let reads = capture.reads.iter().map(|r| a.read(r)).collect();
    let target = match capture.target.split_once("://") {
        Some((scheme @ ("mongodb" | "mongodb+srv"), hosts)) => {
            format!("{scheme}://{}", a.names.connection(hosts))
        }
        Some((_, hosts)) => a.names.connection(hosts),
        None => a.names.connection(&capture.target),
    };
    Capture {
        format: capture.format,
        captured_at_ms: capture.captured_at_ms,
        target,
        server_version: capture.server_version.clone(),
        anonymized: true,
        reads,
    }
}

#[derive(Debug)]
struct Anonymizer {
    names: Names,
    matcher: Matcher,
    keys: StandIns,
    /// A collection's UUID → its namespace (5.0+ chunks name their collection by it).
    uuids: HashMap<Vec<u8>, String>,
    /// A log entry's `_id` → its stand-in.
    entries: HashMap<String, String>,
    /// The first walk notes the key values; the second replaces them.
    collecting: bool,
    /// Walking a command the poller sent (nothing of it is dropped: `open` sends it again).
    in_command: bool,
}

impl Default for Anonymizer {
    fn default() -> Self {
        Self {
            names: Names::default(),
            matcher: Matcher::default(),
            keys: StandIns::default(),
            uuids: HashMap::new(),
            entries: HashMap::new(),
            collecting: true,
            in_command: false,
        }
    }
}

/// The `config` collection a read finds documents of (`find` on `config`), if it is one.
fn config_collection(r: &CapturedRead) -> Option<&str> {
    if r.db != "config" {
        return None;
    }
    let (verb, v) = r.command.iter().next()?;
    match (verb.as_str(), v) {
        ("find", Bson::String(c)) => Some(c),
        _ => None,
    }
}

/// The documents a read answered (a cursor's, or a command's reply).
fn answered(r: &CapturedRead) -> Vec<&Document> {
    match &r.outcome {
        Outcome::Documents(d) => d.iter().collect(),
        Outcome::Reply(d) => vec![d],
        Outcome::Error { .. } => Vec::new(),
    }
}

/// Whether `command`'s pipeline has a stage of users' data.
fn reads_data(command: &Document) -> bool {
    let Ok(pipeline) = command.get_array("pipeline") else {
        return false;
    };
    pipeline.iter().any(|s| match s {
        Bson::Document(d) => d.keys().any(|k| DATA_STAGES.contains(&k.as_str())),
        _ => false,
    })
}

/// The bytes of `d`'s BinData field `f` (a UUID, subtype 4).
fn uuid_of<'a>(d: &'a Document, f: &str) -> Option<&'a [u8]> {
    match d.get(f) {
        Some(Bson::Binary(b)) => Some(&b.bytes),
        _ => None,
    }
}

/// A document's namespace, when it names one (`ns`, or a command's namespace argument).
fn ns_of(d: &Document) -> Option<&str> {
    NS_FIELDS
        .iter()
        .find_map(|f| d.get_str(f).ok())
        .filter(|ns| ns.contains('.'))
}

impl Anonymizer {
    /// One read rewritten (collecting: the key values noted, the result not used).
    fn read(&mut self, r: &CapturedRead) -> CapturedRead {
        let db = self.names.db(&r.db);
        let command = self.command(&r.db, &r.command);
        let coll = config_collection(r);
        let outcome = match &r.outcome {
            Outcome::Documents(_) if reads_data(&r.command) => Outcome::Documents(Vec::new()),
            Outcome::Documents(docs) => Outcome::Documents(
                docs.iter()
                    .enumerate()
                    .map(|(i, d)| self.answer(coll, i, d))
                    .collect(),
            ),
            Outcome::Reply(d) => Outcome::Reply(self.document(d, None)),
            Outcome::Error {
                code,
                code_name,
                message,
            } => Outcome::Error {
                code: *code,
                code_name: code_name.as_ref().map(|c| self.free(c)),
                message: self.free(message),
            },
        };
        CapturedRead {
            db,
            command,
            outcome,
        }
    }

    /// A command: a collection it names on a user's database gets its pseudonym, the rest is a
    /// document like any other.
    fn command(&mut self, db: &str, command: &Document) -> Document {
        self.in_command = true;
        let mut out = self.document(command, None);
        self.in_command = false;
        if own_db(db) {
            return out;
        }
        if let Some((verb, Bson::String(coll))) = command.iter().next() {
            let coll = self.names.coll(db, coll);
            out.insert(verb.clone(), coll);
        }
        if let Ok(coll) = command.get_str("collection") {
            let coll = self.names.coll(db, coll);
            out.insert("collection", coll);
        }
        out
    }

    /// Document `i` of a read of `config.<coll>`.
    fn answer(&mut self, coll: Option<&str>, i: usize, d: &Document) -> Document {
        let mut out = self.document(d, None);
        // A 4.4 chunk's `_id` is its namespace and minimum in words (`ns-field_value`).
        if coll == Some("chunks") && d.get_str("_id").is_ok() {
            let ns = d
                .get_str("ns")
                .map_or_else(|_| "chunk".into(), |ns| self.names.ns(ns));
            out.insert("_id", format!("{ns}-{i}"));
        }
        // A log entry's `_id` begins with the host that wrote it (`host-time-objectid`).
        if matches!(coll, Some("changelog" | "actionlog"))
            && let Ok(id) = d.get_str("_id")
        {
            let n = self.entries.len() + 1;
            let id = self
                .entries
                .entry(id.to_string())
                .or_insert_with(|| format!("entry-{n}"));
            out.insert("_id", id.clone());
        }
        out
    }

    /// `d` rewritten; `ns`: the namespace of the document it is in.
    fn document(&mut self, d: &Document, ns: Option<&str>) -> Document {
        let own = ns_of(d).map(str::to_string).or_else(|| {
            ["uuid", "collectionUUID"]
                .iter()
                .find_map(|f| uuid_of(d, f))
                .and_then(|u| self.uuids.get(u).cloned())
        });
        let ns = own.as_deref().or(ns);
        let mut out = Document::new();
        for (k, v) in d {
            if !self.in_command && DROPPED.contains(&k.as_str()) {
                continue;
            }
            let v = match v {
                Bson::Document(b) if BOUND_FIELDS.contains(&k.as_str()) => {
                    Bson::Document(self.bound(b, ns))
                }
                Bson::Array(items) if BOUND_FIELDS.contains(&k.as_str()) => Bson::Array(
                    items
                        .iter()
                        .map(|b| match b {
                            Bson::Document(b) => Bson::Document(self.bound(b, ns)),
                            other => self.value(k, other, ns),
                        })
                        .collect(),
                ),
                other => self.value(k, other, ns),
            };
            out.insert(self.key(k), v);
        }
        // A privilege's resource: `{db, collection}`.
        if let (Ok(db), Ok(coll)) = (d.get_str("db"), d.get_str("collection")) {
            let coll = self.names.coll(db, coll);
            out.insert("collection", coll);
        }
        out
    }

    /// A shard-key value (`{field: value, …}`) of `ns`.
    fn bound(&mut self, b: &Document, ns: Option<&str>) -> Document {
        let ns = ns.unwrap_or("");
        let mut out = Document::new();
        for (field, v) in b {
            let v = if self.collecting {
                self.keys.note(ns, field, v);
                v.clone()
            } else {
                self.keys.replace(ns, field, v)
            };
            out.insert(self.key(field), v);
        }
        out
    }

    /// The value of field `k`.
    fn value(&mut self, k: &str, v: &Bson, ns: Option<&str>) -> Bson {
        match v {
            Bson::Document(d) => Bson::Document(self.document(d, ns)),
            Bson::Array(items) => Bson::Array(items.iter().map(|i| self.value(k, i, ns)).collect()),
            Bson::String(s) => Bson::String(self.string(k, s)),
            other => other.clone(),
        }
    }

    /// The string of field `k`: a name's pseudonym, MongoDB's words kept, the rest replaced.
    fn string(&mut self, k: &str, s: &str) -> String {
        if USER_FIELDS.contains(&k) {
            self.names.user(s)
        } else if ZONE_FIELDS.contains(&k) {
            self.names.zone(s)
        } else if SET_FIELDS.contains(&k) {
            self.names.set(s)
        } else if HOST_FIELDS.contains(&k) {
            self.names.connection(s)
        } else if let Some(p) = self.names.lookup(s) {
            p
        } else if NS_FIELDS.contains(&k) && s.contains('.')
            || s.split_once('.')
                .is_some_and(|(db, _)| self.names.is_db(db))
        {
            self.names.ns(s)
        } else if TEXT_FIELDS.contains(&k) && s.contains('{') {
            REMOVED.to_string()
        } else {
            self.free(s)
        }
    }

    /// A field's name: a name's pseudonym (a map by shard, say), MongoDB's words kept, any other
    /// word (a shard-key field's name) replaced.
    fn key(&mut self, k: &str) -> String {
        match self.names.lookup(k) {
            Some(p) => p,
            None => self.free(k),
        }
    }

    /// Free text (see [`text`]).
    fn free(&mut self, s: &str) -> String {
        text::free(&mut self.names, &mut self.matcher, s)
    }
}

#[cfg(test)]
#[path = "anonymize/tests.rs"]
mod tests;
