//! The shape of a write command: its statements (`documents`, `updates`, `deletes`, from the body
//! or an OP_MSG document sequence) taken one at a time, the write errors and the `{n,
//! writeErrors}` reply, and the refusal of writes to the generated databases.
//!
//! May import `state`, `query` and `reply`.

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::reply::{self, ok};
use crate::serve::state::State;

/// Refuses writes to the generated `config` and `admin` databases.
pub fn refuse_generated(db: &str, coll: &str) -> Result<(), MongoError> {
    if db == "config" || db == "admin" {
        return Err(MongoError {
            code: 13,
            code_name: "Unauthorized",
            message: format!(
                "cannot write to '{db}.{coll}': the simulated cluster's {db} database is generated"
            ),
        });
    }
    Ok(())
}

/// A write error entry of a write command's reply.
pub fn write_error(index: usize, e: &MongoError) -> Bson {
    // `write_ops.cpp` (`WriteError::serialize`): index, code, the error's extra fields (E11000's
    // `keyPattern` and `keyValue`) and errmsg, no codeName.
    let mut d = doc! { "index": index as i32, "code": e.code };
    if let Some(info) = crate::serve::reply::error_info::of(e) {
        d.extend(info);
    }
    d.insert("errmsg", e.message.clone());
    Bson::Document(d)
}

/// A write command's statements (`documents`, `updates`, `deletes`: from the body or an OP_MSG
/// document sequence), each given to `one` in order; `ordered` stops at the first error.
/// Returns the sum of what the statements counted and the write errors.
pub fn each_statement(
    state: &mut State,
    db: &str,
    cmd: &Document,
    (name, field): (&str, &str),
    mut one: impl FnMut(&mut State, &str, usize, &Document) -> Result<i32, MongoError>,
) -> Result<(i32, Vec<Bson>), MongoError> {
    let coll = reply::first_string(cmd, name)?;
    refuse_generated(db, &coll)?;
    let Some(Bson::Array(statements)) = cmd.get(field) else {
        return Err(reply::failed_to_parse(format!(
            "{name} needs a {field} array"
        )));
    };
    let ordered = !matches!(cmd.get("ordered"), Some(Bson::Boolean(false)));
    let ns = format!("{db}.{coll}");
    let mut n = 0i32;
    let mut errors = Vec::new();
    for (i, stmt) in statements.iter().enumerate() {
        let Bson::Document(stmt) = stmt else {
            return Err(reply::type_mismatch(format!("{field} must be objects")));
        };
        match one(state, &ns, i, stmt) {
            Ok(k) => n += k,
            Err(e) => {
                errors.push(write_error(i, &e));
                if ordered {
                    break;
                }
            }
        }
    }
    Ok((n, errors))
}

/// `{n, writeErrors?}`.
pub fn write_reply(n: i32, errors: Vec<Bson>) -> Document {
    let mut reply = doc! { "n": n };
    if !errors.is_empty() {
        reply.insert("writeErrors", errors);
    }
    ok(reply)
}
