//! The traffic a candidate key is weighed against: the queries and writes on one collection, each
//! with a weight. Read from a workload file the user writes (below), or from the slow-query lines
//! of a MongoDB log ([`read_log`]). What MongoDB routes by is kept: the filter (for an
//! aggregation, its leading `$match`), and for writes the update, `multi` and `upsert`.
//!
//! A workload file is JSON lines, one operation each (blank lines and lines starting with `//`
//! are skipped), in Extended JSON, relaxed or canonical:
//!
//! ```text
//! {"find": {filter}, "weight": 3}
//! {"count": {filter}}
//! {"distinct": "field", "query": {filter}}
//! {"aggregate": [{"$match": {filter}}, ...]}
//! {"update": {filter}, "u": {update} or [pipeline], "multi": false, "upsert": false}
//! {"delete": {filter}, "multi": false}
//! {"findAndModify": {query}, "update": {update} or [pipeline], "upsert": false}
//! {"findAndModify": {query}, "remove": true}
//! ```
//!
//! `weight` is how many times the operation counts: a positive integer, 1 when absent, at most
//! [`MAX_WEIGHT`]. At most [`MAX_OPERATIONS`] operations are read.
//!
//! [`Command`] and [`Operation`] are [`crate::analyze::operation`]'s.

mod slow_log;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use bson::{Bson, Document};

use crate::analyze::operation::{Command, Operation};

use super::data::InputError;
use super::data::text::{self, Lines, Position, grouped, kind};

pub use self::slow_log::{Skipped, parse_log, parse_log_counted, read_log, read_log_counted};

/// The most operations read from one file.
pub const MAX_OPERATIONS: u64 = 1_000_000;
/// The largest weight of one operation.
pub const MAX_WEIGHT: u64 = 1_000_000_000;

/// Reads a workload file (see the module doc).
pub fn read_workload(path: &Path) -> Result<Vec<Operation>, InputError> {
    let file = path.display().to_string();
    let opened = File::open(path).map_err(|e| InputError::in_file(&file, e.to_string()))?;
    parse_workload(BufReader::new(opened), &file)
}

/// Reads a workload's text, named `file` in errors.
pub fn parse_workload(reader: impl BufRead, file: &str) -> Result<Vec<Operation>, InputError> {
    let mut lines = Lines::new(reader, 0);
    let mut operations = Vec::new();
    while let Some((bytes, line)) = lines
        .next_line()
        .map_err(|f| InputError::from_fault(file, f))?
    {
        let start = bytes.iter().position(|b| !text::is_space(*b));
        let Some(start) = start.filter(|s| !bytes[*s..].starts_with(b"//")) else {
            continue;
        };
        let operation =
            workload_line(&bytes[start..], line).map_err(|m| InputError::at_line(file, line, m))?;
        if operations.len() as u64 == MAX_OPERATIONS {
            return Err(too_many(file));
        }
        operations.push(operation);
    }
    Ok(operations)
}

/// The error of a file with more than [`MAX_OPERATIONS`] operations.
fn too_many(file: &str) -> InputError {
    InputError::in_file(
        file,
        format!(
            "more than {max} operations (the lab reads at most {max})",
            max = grouped(MAX_OPERATIONS)
        ),
    )
}

/// The fields an operation of a workload may have besides its command.
fn fields(command: Command) -> &'static [&'static str] {
    match command {
        Command::Find | Command::Count | Command::Aggregate => &["weight"],
        Command::Distinct => &["query", "weight"],
        Command::Update => &["u", "multi", "upsert", "weight"],
        Command::Delete => &["multi", "weight"],
        Command::FindAndModify => &["update", "remove", "upsert", "weight"],
    }
}

/// One line of a workload.
fn workload_line(bytes: &[u8], line: u64) -> Result<Operation, String> {
    let names = "find, aggregate, count, distinct, update, delete or findAndModify";
    let doc = match text::bson(text::json(bytes, Position::Line)?)? {
        Bson::Document(doc) => doc,
        other => return Err(format!("expected an operation, found {}", kind(&other))),
    };
    let Some((name, value)) = doc.iter().next() else {
        return Err(format!("no operation (expected {names})"));
    };
    let command = Command::named(name)
        .ok_or_else(|| format!("unknown operation {name:?} (expected {names})"))?;
    let allowed = fields(command);
    if let Some(key) = doc.keys().skip(1).find(|k| !allowed.contains(&k.as_str())) {
        let expected: Vec<String> = allowed.iter().map(|f| format!("{f:?}")).collect();
        return Err(format!(
            "unknown field {key:?} in a {name} (expected {})",
            expected.join(", ")
        ));
    }
    let mut op = Operation::new(command, line);
    op.weight = weight(doc.get("weight"))?;
    let what = format!("{name:?}");
    match command {
        Command::Find | Command::Count => op.filter = document(value, &what)?,
        Command::Distinct => {
            if !matches!(value, Bson::String(_)) {
                return Err(format!("{what} needs a field name, found {}", kind(value)));
            }
            op.filter = optional_document(doc.get("query"), "\"query\"")?;
        }
        Command::Aggregate => op.filter = pipeline_filter(value, &what)?,
        Command::Update => {
            op.filter = document(value, &what)?;
            let u = doc.get("u").ok_or("\"update\" needs \"u\"")?;
            set_update(&mut op, u, "\"u\"")?;
            op.multi = flag(doc.get("multi"), "multi")?;
            op.upsert = flag(doc.get("upsert"), "upsert")?;
        }
        Command::Delete => {
            op.filter = document(value, &what)?;
            op.multi = flag(doc.get("multi"), "multi")?;
        }
        Command::FindAndModify => {
            op.filter = document(value, &what)?;
            let remove = flag(doc.get("remove"), "remove")?;
            find_and_modify(&mut op, doc.get("update"), remove)?;
            op.upsert = flag(doc.get("upsert"), "upsert")?;
            if remove && op.upsert {
                return Err("\"findAndModify\" cannot \"upsert\" with \"remove\"".into());
            }
        }
    }
    Ok(op)
}

/// `weight`: a positive integer (an integral double too), 1 when absent.
fn weight(value: Option<&Bson>) -> Result<u64, String> {
    let bad = || "\"weight\" must be a positive integer".to_string();
    let n = match value {
        None => return Ok(1),
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(f)) if f.fract() == 0.0 && f.abs() < 1e18 => *f as i64,
        Some(_) => return Err(bad()),
    };
    let n = u64::try_from(n).ok().filter(|n| *n > 0).ok_or_else(bad)?;
    if n > MAX_WEIGHT {
        return Err(format!(
            "\"weight\" must be at most {}",
            grouped(MAX_WEIGHT)
        ));
    }
    Ok(n)
}

/// findAndModify's `update` or `remove: true`, one of them.
fn find_and_modify(op: &mut Operation, update: Option<&Bson>, remove: bool) -> Result<(), String> {
    match (update, remove) {
        (Some(u), false) => set_update(op, u, "\"update\""),
        (None, true) => Ok(()),
        (Some(_), true) => {
            Err("\"findAndModify\" takes \"update\" or \"remove\": true, not both".into())
        }
        (None, false) => Err("\"findAndModify\" needs \"update\" or \"remove\": true".into()),
    }
}

/// A value that must be a document, `what` naming it in the message.
fn document(value: &Bson, what: &str) -> Result<Document, String> {
    match value {
        Bson::Document(doc) => Ok(doc.clone()),
        other => Err(format!("{what} must be a document, found {}", kind(other))),
    }
}

/// A document, empty when absent or null.
fn optional_document(value: Option<&Bson>, what: &str) -> Result<Document, String> {
    match value {
        None | Some(Bson::Null) => Ok(Document::new()),
        Some(v) => document(v, what),
    }
}

/// `true` or `false`, `false` when absent.
fn flag(value: Option<&Bson>, name: &str) -> Result<bool, String> {
    match value {
        None => Ok(false),
        Some(Bson::Boolean(b)) => Ok(*b),
        Some(_) => Err(format!("\"{name}\" must be true or false")),
    }
}

/// An update's modification: a document (modifiers or a replacement) or a pipeline.
fn set_update(op: &mut Operation, value: &Bson, what: &str) -> Result<(), String> {
    match value {
        Bson::Document(doc) => op.update = Some(doc.clone()),
        Bson::Array(_) => op.pipeline_update = true,
        other => {
            return Err(format!(
                "{what} must be a document or a pipeline, found {}",
                kind(other)
            ));
        }
    }
    Ok(())
}

/// A pipeline's leading `$match` (empty when the first stage is another one).
fn pipeline_filter(value: &Bson, what: &str) -> Result<Document, String> {
    let Bson::Array(stages) = value else {
        return Err(format!(
            "{what} must be a pipeline (an array of stages), found {}",
            kind(value)
        ));
    };
    if let Some(stage) = stages.iter().find(|s| !matches!(s, Bson::Document(_))) {
        return Err(format!(
            "a stage of {what} must be a document, found {}",
            kind(stage)
        ));
    }
    match stages.first() {
        Some(Bson::Document(stage))
            if stage.keys().next().map(String::as_str) == Some("$match") =>
        {
            document(stage.get("$match").unwrap_or(&Bson::Null), "\"$match\"")
        }
        _ => Ok(Document::new()),
    }
}
