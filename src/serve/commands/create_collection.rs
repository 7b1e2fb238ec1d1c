//! `create` as a mongos answers it (`s/commands/cluster_create_cmd.cpp`: the database is created,
//! `capped` needs `size`, `temp` is refused, the rest goes to the primary shard's
//! `db/catalog/create_collection.cpp`). A collection that exists already is fine when its options
//! are the ones asked for — a mongos has answered so since 4.0 (SERVER-33276) — and
//! NamespaceExists (48) otherwise, naming the existing options. The options kept, as
//! `listCollections` shows them, are normalized as `db/catalog/collection_options.cpp` does:
//! `size` rounded up to a multiple of 256, numbers as `appendNumber` writes them (int32 below
//! 2^30), `size` and `max` only for a capped collection, a `simple` collation left out.
//!
//! A `validator` of query operators is kept and checked on every write (`state::validation`).
//! Not simulated, so refused with CommandNotSupported (115) rather than accepted and ignored
//! (docs/fidelity.md): `$jsonSchema` validators, a non-simple `collation`, `timeseries`, views (`viewOn`), clustered collections,
//! `encryptedFields`, `changeStreamPreAndPostImages` enabled. A capped collection keeps its newest
//! documents within `size` and `max` (`write_path::route`).

use std::fmt::Write;

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;
use crate::serve::write_path::namespaces;

/// The fields every command may carry (`idl/generic_argument.idl`).
const GENERIC: &[&str] = &[
    "$db",
    "lsid",
    "txnNumber",
    "autocommit",
    "startTransaction",
    "writeConcern",
    "readConcern",
    "comment",
    "maxTimeMS",
    "$clusterTime",
    "$readPreference",
    "apiVersion",
    "apiStrict",
    "apiDeprecationErrors",
    "$audit",
    "$client",
];

/// Kept as given: they change nothing `serve` simulates.
const STORAGE: &[&str] = &["storageEngine", "indexOptionDefaults", "idIndex", "flags"];

/// `create: coll, …options`.
pub fn create(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "create")?;
    crate::serve::write_path::statements::refuse_generated(db, &coll)?;
    if coll.is_empty() || coll.contains('$') || coll.starts_with('.') {
        return Err(reply::invalid_namespace(format!(
            "Invalid namespace specified '{db}.{coll}'"
        )));
    }
    let wanted = options(state.sim.cluster.version, cmd)?;
    let ns = format!("{db}.{coll}");
    if namespaces::exists(state, &ns) {
        let have = existing_options(state, &ns);
        if have == wanted {
            return Ok(ok(Document::new()));
        }
        return Err(MongoError::namespace_exists(format!(
            "namespace {ns} already exists, but with different options: {}",
            options_text(state, &ns, &have)
        )));
    }
    state.sim.cluster.ensure_database(db);
    state.unsharded.entry(ns.clone()).or_default();
    if !wanted.is_empty() {
        state.coll_options.insert(ns, wanted);
    }
    Ok(ok(Document::new()))
}

/// The options a collection was created with (none for one the simulator shards).
fn existing_options(state: &State, ns: &str) -> Document {
    state.coll_options.get(ns).cloned().unwrap_or_default()
}

/// `{ uuid: UUID("…"), …options }`, as the server's message prints a collection's options.
fn options_text(state: &State, ns: &str, options: &Document) -> String {
    let incarnation = state
        .sim
        .cluster
        .collection(ns)
        .map_or(0, |c| c.incarnation);
    let uuid = match crate::serve::catalog::ids::collection_uuid(ns, incarnation) {
        Bson::Binary(b) => uuid_text(&b.bytes),
        _ => String::new(),
    };
    let rest = crate::model::shell_text::document(options);
    let rest = rest.trim_start_matches('{').trim_end_matches('}').trim();
    if rest.is_empty() {
        format!("{{ uuid: UUID(\"{uuid}\") }}")
    } else {
        format!("{{ uuid: UUID(\"{uuid}\"), {rest} }}")
    }
}

fn uuid_text(b: &[u8]) -> String {
    let hex = b.iter().fold(String::new(), |mut out, x| {
        let _ = write!(out, "{x:02x}");
        out
    });
    if hex.len() != 32 {
        return hex;
    }
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// A number as `BSONObjBuilder::appendNumber(long long)` writes it.
fn append_number(n: i64) -> Bson {
    if n.abs() < 1 << 30 {
        Bson::Int32(n as i32)
    } else {
        Bson::Int64(n)
    }
}

fn number(v: &Bson, field: &str) -> Result<i64, MongoError> {
    match v {
        Bson::Int32(n) => Ok(i64::from(*n)),
        Bson::Int64(n) => Ok(*n),
        Bson::Double(x) if x.is_finite() => Ok(*x as i64),
        _ => Err(reply::type_mismatch(format!(
            "BSON field 'create.{field}' is the wrong type '{}', expected types '[long, int, decimal, double]'",
            reply::type_name(v)
        ))),
    }
}

fn not_simulated(what: &str) -> MongoError {
    MongoError::command_not_supported(format!(
        "shardtop serve does not simulate {what}; the collection was not created"
    ))
}

/// The options of `cmd`, normalized as the server keeps them; the server's refusals.
fn options(v: ServerVersion, cmd: &Document) -> Result<Document, MongoError> {
    let mut capped = false;
    let (mut size, mut max) = (None, None);
    let mut kept = Document::new();
    for (k, val) in cmd.iter().skip(1) {
        match k.as_str() {
            k if GENERIC.contains(&k) => {}
            "capped" => {
                capped = matches!(val, Bson::Boolean(true)) || number(val, k).is_ok_and(|n| n != 0);
            }
            "size" => size = Some(number(val, k)?),
            "max" => max = Some(number(val, k)?),
            "temp" if reply::flag(cmd, "temp") => {
                return Err(MongoError::invalid_options(
                    "the 'temp' field is an invalid option",
                ));
            }
            "temp" | "autoIndexId" => {}
            "validator" => {
                validator(val)?;
                kept.insert(k, val.clone());
            }
            "validationLevel" | "validationAction" => {
                validation_option(k, val)?;
                kept.insert(k, val.clone());
            }
            "collation" => collation(val)?,
            "timeseries" | "expireAfterSeconds" if v >= ServerVersion::V5_0 => {
                return Err(not_simulated("time-series collections (timeseries)"));
            }
            "viewOn" | "pipeline" => return Err(not_simulated("views (viewOn, pipeline)")),
            "clusteredIndex" if v >= ServerVersion::V6_0 => {
                return Err(not_simulated("clustered collections (clusteredIndex)"));
            }
            "encryptedFields" if v >= ServerVersion::V6_0 => {
                return Err(not_simulated("queryable encryption (encryptedFields)"));
            }
            "changeStreamPreAndPostImages" if v >= ServerVersion::V6_0 => {
                if reply::doc_arg(cmd, k)?.get("enabled") == Some(&Bson::Boolean(true)) {
                    return Err(not_simulated("change stream pre- and post-images"));
                }
            }
            k if STORAGE.contains(&k) => {
                kept.insert(k, val.clone());
            }
            _ => {
                return Err(MongoError::unknown_field(format!(
                    "BSON field 'create.{k}' is an unknown field."
                )));
            }
        }
    }
    let mut out = Document::new();
    if capped {
        out.extend(capped_options(size, max)?);
    }
    out.extend(kept);
    Ok(out)
}

/// `capped: true, size, max?` (`cluster_create_cmd.cpp`; `collection_options.cpp` rounds
/// `size` up to 256 bytes and bounds both).
fn capped_options(size: Option<i64>, max: Option<i64>) -> Result<Document, MongoError> {
    let size = size
        .filter(|s| *s != 0)
        .ok_or_else(|| MongoError::invalid_options("specify size:<n> when capped is true"))?;
    if size < 0 {
        return Err(MongoError::bad_value("size has to be >= 0"));
    }
    if size > 1 << 50 {
        return Err(MongoError::bad_value("size cannot exceed 1 PB"));
    }
    let rounded = (size + 0xff) & !0xff;
    let mut d = doc! { "capped": true, "size": append_number(rounded) };
    if let Some(m) = max {
        if m >= 1 << 31 {
            return Err(MongoError::bad_value(
                "max in a capped collection has to be < 2^31 or not set",
            ));
        }
        d.insert("max", append_number(m.max(0)));
    }
    Ok(d)
}

/// A validator is parsed as the server parses it (an unknown operator is BadValue); one with
/// `$jsonSchema` anywhere is not simulated.
fn validator(v: &Bson) -> Result<(), MongoError> {
    let Bson::Document(filter) = v else {
        return Err(reply::type_mismatch(format!(
            "BSON field 'create.validator' is the wrong type '{}', expected type 'object'",
            reply::type_name(v)
        )));
    };
    if crate::model::shell_text::document(filter).contains("$jsonSchema") {
        return Err(not_simulated("$jsonSchema validators"));
    }
    crate::serve::query::matches(&Document::new(), filter).map(|_| ())
}

/// `validationLevel` and `validationAction` take one of their enumeration's values (IDL, code 2).
fn validation_option(field: &str, v: &Bson) -> Result<(), MongoError> {
    let allowed: &[&str] = if field == "validationLevel" {
        &["off", "strict", "moderate"]
    } else {
        &["error", "warn"]
    };
    match v {
        Bson::String(s) if allowed.contains(&s.as_str()) => Ok(()),
        Bson::String(s) => Err(MongoError::bad_value(format!(
            "Enumeration value '{s}' for field 'create.{field}' is not a valid value."
        ))),
        _ => Err(reply::type_mismatch(format!(
            "BSON field 'create.{field}' is the wrong type '{}', expected type 'string'",
            reply::type_name(v)
        ))),
    }
}

/// `collation`: `{locale: "simple"}` is no collation; any other is not simulated.
fn collation(v: &Bson) -> Result<(), MongoError> {
    let Bson::Document(c) = v else {
        return Err(reply::type_mismatch(format!(
            "BSON field 'create.collation' is the wrong type '{}', expected type 'object'",
            reply::type_name(v)
        )));
    };
    match c.get("locale") {
        Some(Bson::String(l)) if l == "simple" => Ok(()),
        Some(_) => Err(not_simulated("collations other than simple")),
        None => Err(MongoError::location(
            40414,
            "Location40414",
            "BSON field 'locale' is missing but a required field",
        )),
    }
}
