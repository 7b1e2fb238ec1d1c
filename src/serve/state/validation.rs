//! Document validation: a collection's `validator` (made of query operators; `$jsonSchema` is not
//! simulated), `validationLevel` and `validationAction`, as `create` gave them, checked on every
//! insert, update and replacement (`db/catalog/collection_impl.cpp`, `checkValidation`):
//! `strict` checks every write, `moderate` lets an update through when the document already
//! failed, `off` checks nothing; `error` refuses the write with DocumentValidationFailure (121,
//! "Document failed validation"), `warn` lets it through. From 5.0 the error carries
//! `errInfo.failingDocumentId` (`db/pipeline/doc_validation_error.cpp`); the `details` a server
//! adds there, explaining which rule failed, are not produced (docs/fidelity.md).
//!
//! Data only; imports `query` and `reply`.

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};

/// Checks `new` (replacing `old`, if any) against the validation of `options`; `Ok(true)` when
/// it passes or is let through, `Ok(false)` when it fails under `validationAction: "warn"`.
pub fn check(
    v: ServerVersion,
    options: &Document,
    new: &Document,
    old: Option<&Document>,
) -> Result<bool, MongoError> {
    let Ok(validator) = options.get_document("validator") else {
        return Ok(true);
    };
    let level = options.get_str("validationLevel").unwrap_or("strict");
    if level == "off" || crate::serve::query::matches(new, validator)? {
        return Ok(true);
    }
    if level == "moderate"
        && let Some(old) = old
        && !crate::serve::query::matches(old, validator)?
    {
        return Ok(true);
    }
    if options.get_str("validationAction") == Ok("warn") {
        return Ok(false);
    }
    let e = MongoError {
        code: 121,
        code_name: "DocumentValidationFailure",
        message: "Document failed validation".into(),
    };
    if v < ServerVersion::V5_0 {
        return Err(e);
    }
    let id = new.get("_id").cloned().unwrap_or(Bson::Null);
    Err(crate::serve::reply::error_info::attach(
        e,
        doc! { "errInfo": { "failingDocumentId": id } },
    ))
}
