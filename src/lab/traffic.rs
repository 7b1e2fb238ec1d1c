//! Placeholder types until the readers land (replaced by the readers' module).

/// The command of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Find,
    Aggregate,
    Count,
    Distinct,
    Update,
    Delete,
    FindAndModify,
}

impl Command {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Find => "find",
            Self::Aggregate => "aggregate",
            Self::Count => "count",
            Self::Distinct => "distinct",
            Self::Update => "update",
            Self::Delete => "delete",
            Self::FindAndModify => "findAndModify",
        }
    }

    pub fn is_read(self) -> bool {
        matches!(
            self,
            Self::Find | Self::Aggregate | Self::Count | Self::Distinct
        )
    }
}

/// One operation of the traffic with its weight.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    pub command: Command,
    pub filter: bson::Document,
    pub update: Option<bson::Document>,
    pub pipeline_update: bool,
    pub multi: bool,
    pub upsert: bool,
    pub weight: u64,
    pub line: u64,
}

pub fn read_workload(_path: &std::path::Path) -> Result<Vec<Operation>, super::data::InputError> {
    Ok(Vec::new())
}
pub fn read_log(
    _path: &std::path::Path,
    _ns: &str,
) -> Result<Vec<Operation>, super::data::InputError> {
    Ok(Vec::new())
}
