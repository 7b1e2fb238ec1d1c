//! The traffic in a MongoDB log (4.4+, one JSON document a line): the slow operations on one
//! namespace, each one operation of weight 1. What the reader relies on, from MongoDB's source:
//!
//! - `CurOp::completeAndLogOperation` (src/mongo/db/curop.cpp) writes id 51803,
//!   `"msg":"Slow query"`, whose attributes `OpDebug::report` builds: `type` is `"command"` for a
//!   command, else the network op's name (`networkOpToString`, src/mongo/rpc/message.cpp:
//!   `"update"`, `"remove"`, ...); `ns`; `command`, the command object as the command snips it
//!   for the log. Values are relaxed Extended JSON.
//! - A command's line is `{"type":"command","ns":"db.coll","command":{"find":"coll",
//!   "filter":{…},…}}`; `aggregate` has `pipeline`, `count` and `distinct` a `query`,
//!   `findAndModify` (or the shell's `findandmodify`) `query`, `update`, `remove`, `upsert`.
//! - A write command's line (`"update"` with `updates`, `"delete"` with `deletes`) may have
//!   `ns` `"db.$cmd"` (jstests/noPassthrough/log_format_slowms_samplerate_loglevel.js), so
//!   the collection is read from the command; and on a mongod its statements array is replaced
//!   by their count when there are more than one (`redactTooLongLog` in
//!   src/mongo/db/commands/write_commands.cpp).
//! - On a mongod, each statement of a write command is its own operation too
//!   (`performUpdates` / `performDeletes`, src/mongo/db/ops/write_ops_exec.cpp), logged when it
//!   is slow with `"c":"WRITE"`, `type` `"update"` or `"remove"`, `ns` the collection and
//!   `command` the statement: `{q, u, multi, upsert}` (`UpdateOpEntry`) or `{q, limit}`
//!   (`DeleteOpEntry`, `limit` 0 for every match; src/mongo/db/ops/write_ops.idl).
//!
//! So a slow write can be on two lines: its statement's, then its command's on the same
//! connection (`ctx`), which always follows (it lasted longer). A statement's line is held until
//! its connection's next slow command: a write command carrying its statements stands for them,
//! one carrying only their count lets the held lines stand, any other command (the write's own
//! line was not logged: `slowOpSampleRate`) lets them stand too. Writes by the legacy opcodes
//! (gone in 6.0) may count twice.
//!
//! Skipped: a line whose command the log cut, as its filter may be missing conditions (an
//! attribute over `maxLogSizeKB` loses values and the line gets `"truncated":{"command":…}`,
//! src/mongo/logv2/json_formatter.cpp); a failed operation (`errCode`, as `OpDebug::report`
//! adds it: it read and wrote nothing); `getMore` (its `originatingCommand` was counted),
//! `explain`, inserts and other commands. A slow query on the namespace whose command does not
//! read as above is an error. Read one router's log (or one mongod's for a collection not
//! sharded): each shard logs its part of a query again.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use bson::Bson;
use serde_json::{Map, Value};

use super::{
    Command, InputError, MAX_OPERATIONS, Operation, document, find_and_modify, flag,
    optional_document, pipeline_filter, set_update, too_many,
};
use crate::lab::input::data::text::{self, Lines};

/// Slow-query lines of a log that could not be read at all (not JSON to the reader: a filter
/// nested deeper than its 128 levels, a line cut short), counted instead of dropped unsaid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    pub lines: u64,
    /// The first one's line number and why.
    pub first: Option<(u64, String)>,
    /// Each one's line number and why, the first [`MAX_NAMED`] of them.
    pub named: Vec<(u64, String)>,
}

/// The most skipped lines named one by one (the count goes on past it).
pub const MAX_NAMED: usize = 1_000;

/// Reads the slow queries of a log file on namespace `ns` (`db.collection`).
pub fn read_log(path: &Path, ns: &str) -> Result<Vec<Operation>, InputError> {
    read_log_counted(path, ns).map(|(ops, _)| ops)
}

/// [`read_log`], with the slow-query lines it could not read.
pub fn read_log_counted(path: &Path, ns: &str) -> Result<(Vec<Operation>, Skipped), InputError> {
    let file = path.display().to_string();
    let opened = File::open(path).map_err(|e| InputError::in_file(&file, e.to_string()))?;
    parse_log_counted(BufReader::new(opened), &file, ns)
}

/// Reads a log's text, named `file` in errors: the operations in line order; an error when no
/// line is a log entry (a JSON object with a `msg`).
pub fn parse_log(reader: impl BufRead, file: &str, ns: &str) -> Result<Vec<Operation>, InputError> {
    parse_log_counted(reader, file, ns).map(|(ops, _)| ops)
}

/// [`parse_log`], with the slow-query lines it could not read.
pub fn parse_log_counted(
    reader: impl BufRead,
    file: &str,
    ns: &str,
) -> Result<(Vec<Operation>, Skipped), InputError> {
    let mut skipped = Skipped::default();
    let mut lines = Lines::new(reader, 0);
    let mut log = Log {
        ns,
        done: Vec::new(),
        held: HashMap::new(),
        held_count: 0,
    };
    let mut seen_log = false;
    while let Some((bytes, line)) = lines
        .next_line()
        .map_err(|f| InputError::from_fault(file, f))?
    {
        // Once the file is known to be a log, only slow-query lines are worth parsing.
        if seen_log && !contains(bytes, b"Slow query") {
            continue;
        }
        let entry = match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(entry)) => entry,
            Err(e) if contains(bytes, b"Slow query") => {
                skipped.lines += 1;
                let why = format!("a slow query the reader cannot read: {e}");
                if skipped.first.is_none() {
                    skipped.first = Some((line, why.clone()));
                }
                if skipped.named.len() < MAX_NAMED {
                    skipped.named.push((line, why));
                }
                continue;
            }
            _ => continue,
        };
        seen_log |= entry.get("msg").is_some_and(Value::is_string);
        log.take(&entry, line)
            .map_err(|m| InputError::at_line(file, line, m))?;
        if (log.done.len() + log.held_count) as u64 > MAX_OPERATIONS {
            return Err(too_many(file));
        }
    }
    if !seen_log {
        return Err(InputError::in_file(file, "not a MongoDB JSON log (4.4+)"));
    }
    let mut operations = log.finish();
    operations.sort_by_key(|op| op.line);
    Ok((operations, skipped))
}

/// The operations read so far.
struct Log<'a> {
    ns: &'a str,
    done: Vec<Operation>,
    /// Per connection, write statements whose command's line has not come yet.
    held: HashMap<String, Vec<Operation>>,
    held_count: usize,
}

impl Log<'_> {
    /// One log entry: a slow query on the namespace gives operations, anything else nothing.
    fn take(&mut self, entry: &Map<String, Value>, line: u64) -> Result<(), String> {
        if entry.get("msg").and_then(Value::as_str) != Some("Slow query") {
            return Ok(());
        }
        if entry
            .get("truncated")
            .and_then(|t| t.get("command"))
            .is_some()
        {
            return Ok(());
        }
        let ctx = entry.get("ctx").and_then(Value::as_str).unwrap_or("");
        let Some(attr) = entry.get("attr").and_then(Value::as_object) else {
            return Ok(());
        };
        if attr.contains_key("errCode") {
            return Ok(());
        }
        let ns = attr.get("ns").and_then(Value::as_str).unwrap_or("");
        let Some(command) = attr.get("command").and_then(Value::as_object) else {
            return Ok(());
        };
        match attr.get("type").and_then(Value::as_str) {
            Some(kind @ ("update" | "remove")) if ns == self.ns => {
                let op = statement(kind == "update", command, line)?;
                self.held.entry(ctx.to_string()).or_default().push(op);
                self.held_count += 1;
                Ok(())
            }
            Some("command") => self.command(ctx, ns, command, line),
            _ => Ok(()),
        }
    }

    /// A command's line.
    fn command(
        &mut self,
        ctx: &str,
        ns: &str,
        command: &Map<String, Value>,
        line: u64,
    ) -> Result<(), String> {
        let Some((name, target)) = command.iter().next() else {
            return Ok(());
        };
        let ours = target_ns(ns, target) == self.ns;
        let held = self.held.remove(ctx).unwrap_or_default();
        self.held_count -= held.len();
        let list = match name.as_str() {
            "update" => "updates",
            "delete" => "deletes",
            _ => {
                self.done.extend(held);
                if ours && let Some(op) = query(name, command, line)? {
                    self.done.push(op);
                }
                return Ok(());
            }
        };
        match command.get(list) {
            Some(Value::Array(statements)) if ours => {
                for s in statements {
                    let s = s
                        .as_object()
                        .ok_or_else(|| format!("an element of {list:?} is not a document"))?;
                    self.done.push(statement(list == "updates", s, line)?);
                }
            }
            _ => self.done.extend(held),
        }
        Ok(())
    }

    /// Every operation, the statements still held with them.
    fn finish(mut self) -> Vec<Operation> {
        for (_, held) in self.held.drain() {
            self.done.extend(held);
        }
        self.done
    }
}

/// The namespace a command's line is about: its `ns`, or for `db.$cmd` the collection the
/// command names.
fn target_ns(ns: &str, target: &Value) -> String {
    match (ns.strip_suffix(".$cmd"), target.as_str()) {
        (Some(db), Some(coll)) => format!("{db}.{coll}"),
        _ => ns.to_string(),
    }
}

/// A query or findAndModify; `None` for any other command.
fn query(name: &str, command: &Map<String, Value>, line: u64) -> Result<Option<Operation>, String> {
    let (kind, filter) = match name {
        "find" => (Command::Find, "filter"),
        "aggregate" => (Command::Aggregate, "pipeline"),
        "count" => (Command::Count, "query"),
        "distinct" => (Command::Distinct, "query"),
        "findAndModify" | "findandmodify" => (Command::FindAndModify, "query"),
        _ => return Ok(None),
    };
    let mut op = Operation::new(kind, line);
    let what = format!("{filter:?}");
    op.filter = match field(command, filter)? {
        Some(pipeline) if kind == Command::Aggregate => pipeline_filter(&pipeline, &what)?,
        value => optional_document(value.as_ref(), &what)?,
    };
    if kind == Command::FindAndModify {
        let remove = flag(field(command, "remove")?.as_ref(), "remove")?;
        find_and_modify(&mut op, field(command, "update")?.as_ref(), remove)?;
        op.upsert = flag(field(command, "upsert")?.as_ref(), "upsert")?;
    }
    Ok(Some(op))
}

/// One write statement: an update's `{q, u, multi, upsert}` or a delete's `{q, limit}`.
fn statement(update: bool, s: &Map<String, Value>, line: u64) -> Result<Operation, String> {
    let q = field(s, "q")?.ok_or("a write statement has no \"q\"")?;
    let mut op = Operation::new(
        if update {
            Command::Update
        } else {
            Command::Delete
        },
        line,
    );
    op.filter = document(&q, "\"q\"")?;
    if update {
        let u = field(s, "u")?.ok_or("an update statement has no \"u\"")?;
        set_update(&mut op, &u, "\"u\"")?;
        op.multi = flag(field(s, "multi")?.as_ref(), "multi")?;
        op.upsert = flag(field(s, "upsert")?.as_ref(), "upsert")?;
    } else {
        op.multi = match s.get("limit").and_then(Value::as_f64) {
            Some(0.0) => true,
            None | Some(1.0) => false,
            Some(_) => return Err("\"limit\" must be 0 or 1".into()),
        };
    }
    Ok(op)
}

/// A field of a logged command, read as Extended JSON.
fn field(command: &Map<String, Value>, key: &str) -> Result<Option<Bson>, String> {
    command.get(key).cloned().map(text::bson).transpose()
}

/// `needle` occurs in `bytes`.
fn contains(bytes: &[u8], needle: &[u8]) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle)
}
