//! `shardtop hash VALUE`.

use std::io::Write;

use super::{Failure, write_failed};
use crate::model::{extjson, hash64};

pub fn run(value: &str, out: &mut impl Write) -> Result<(), Failure> {
    let parsed = extjson::parse(value)
        .map_err(|e| Failure::input(format!("malformed VALUE {value:?}: {e}")))?;
    writeln!(out, "{}", hash64(&parsed)).map_err(|e| write_failed(&e))
}
