//! The sampled queries of a live cluster (`$listSampledQueries`, 7.0+) as operations: each
//! sample is `{ns, cmdName, cmd}`; a read's `cmd` is `{filter, collation, let}`, a write's the
//! command with its one sampled statement (`{update, updates: [{q, u, multi, upsert}]}`,
//! `{delete, deletes: [{q, limit}]}`) or the findAndModify command (`query`, `update`,
//! `remove`) — 8.0 `src/mongo/s/analyze_shard_key_documents.idl` (`SampledQueryDocument`) and
//! `src/mongo/db/s/query_analysis_writer.cpp`. Each sample weighs 1.

use bson::{Bson, Document};

use super::{Command, Operation};

/// The operation a sample stands for (`None` for a command the lab does not read).
pub fn operation(sample: &Document, index: u64) -> Option<Operation> {
    let name = sample.get_str("cmdName").ok()?;
    let cmd = sample.get_document("cmd").ok()?;
    let command = match name {
        "find" => Command::Find,
        "aggregate" => Command::Aggregate,
        "count" => Command::Count,
        "distinct" => Command::Distinct,
        "update" => Command::Update,
        "delete" => Command::Delete,
        "findAndModify" => Command::FindAndModify,
        _ => return None,
    };
    let mut op = Operation::new(command, index);
    match command {
        Command::Update => {
            let s = first(cmd, "updates")?;
            op.filter = s.get_document("q").cloned().unwrap_or_default();
            set_update(&mut op, s.get("u"));
            op.multi = s.get_bool("multi").unwrap_or(false);
            op.upsert = s.get_bool("upsert").unwrap_or(false);
        }
        Command::Delete => {
            let s = first(cmd, "deletes")?;
            op.filter = s.get_document("q").cloned().unwrap_or_default();
            op.multi = matches!(s.get("limit"), Some(Bson::Int32(0) | Bson::Int64(0)));
        }
        Command::FindAndModify => {
            op.filter = cmd.get_document("query").cloned().unwrap_or_default();
            set_update(&mut op, cmd.get("update"));
            op.upsert = cmd.get_bool("upsert").unwrap_or(false);
        }
        _ => op.filter = cmd.get_document("filter").cloned().unwrap_or_default(),
    }
    Some(op)
}

fn first<'a>(cmd: &'a Document, list: &str) -> Option<&'a Document> {
    match cmd.get_array(list).ok()?.first()? {
        Bson::Document(d) => Some(d),
        _ => None,
    }
}

fn set_update(op: &mut Operation, u: Option<&Bson>) {
    match u {
        Some(Bson::Document(d)) => op.update = Some(d.clone()),
        Some(Bson::Array(_)) => op.pipeline_update = true,
        _ => {}
    }
}
