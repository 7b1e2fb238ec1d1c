//! The sampled queries of a cluster (`$listSampledQueries`, 7.0+) as operations: each sample is
//! `{ns, cmdName, cmd}`; a read's `cmd` is `{filter, collation, let}`, a write's the command with
//! its sampled statements (`{update, updates: [{q, u, multi, upsert}]}`, `{delete, deletes:
//! [{q, limit}]}`, `limit` 0 for a multi delete) or the findAndModify command (`query`,
//! `update`, `upsert`) — 8.0 `src/mongo/s/analyze_shard_key_documents.idl`
//! (`SampledQueryDocument`) and `src/mongo/db/s/query_analysis_writer.cpp`. Flags are read as
//! the server reads them (a number is true when not 0). Each operation weighs 1. The lab reads a
//! live cluster's samples through this, and `serve`'s `analyzeShardKey` its own.

use bson::{Bson, Document};

use super::operation::{Command, Operation};

/// The operations a sample stands for: one for a read or a findAndModify, one per statement of
/// an update or delete; none for a command the lab does not read.
pub fn operations(sample: &Document, index: u64) -> Vec<Operation> {
    let (Ok(name), Ok(cmd)) = (sample.get_str("cmdName"), sample.get_document("cmd")) else {
        return Vec::new();
    };
    let Some(command) = Command::ALL.into_iter().find(|c| c.as_str() == name) else {
        return Vec::new();
    };
    let op = |filter: &Document| Operation {
        filter: filter.clone(),
        ..Operation::new(command, index)
    };
    match command {
        Command::Update => statements(cmd, "updates")
            .map(|s| {
                let mut o = op(&document(s, "q"));
                set_update(&mut o, s.get("u"));
                o.multi = flag(s, "multi");
                o.upsert = flag(s, "upsert");
                o
            })
            .collect(),
        Command::Delete => statements(cmd, "deletes")
            .map(|s| Operation {
                multi: !flag(s, "limit"),
                ..op(&document(s, "q"))
            })
            .collect(),
        Command::FindAndModify => {
            let mut o = op(&document(cmd, "query"));
            set_update(&mut o, cmd.get("update"));
            o.upsert = flag(cmd, "upsert");
            vec![o]
        }
        _ => vec![op(&document(cmd, "filter"))],
    }
}

fn statements<'a>(cmd: &'a Document, list: &str) -> impl Iterator<Item = &'a Document> {
    cmd.get_array(list)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(Bson::as_document)
}

fn document(d: &Document, field: &str) -> Document {
    d.get_document(field).cloned().unwrap_or_default()
}

/// A boolean option as the server reads it: true, or a number other than 0.
fn flag(d: &Document, field: &str) -> bool {
    match d.get(field) {
        Some(Bson::Boolean(b)) => *b,
        Some(Bson::Int32(n)) => *n != 0,
        Some(Bson::Int64(n)) => *n != 0,
        Some(Bson::Double(x)) => *x != 0.0,
        _ => false,
    }
}

fn set_update(op: &mut Operation, u: Option<&Bson>) {
    match u {
        Some(Bson::Document(d)) => op.update = Some(d.clone()),
        Some(Bson::Array(_)) => op.pipeline_update = true,
        _ => {}
    }
}
