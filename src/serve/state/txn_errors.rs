//! The errors of sessions and transactions, in the server's words (`db/transaction/transaction_participant.cpp`,
//! `db/initialize_operation_session_info.cpp`, `db/concurrency/exception_util.h`). May import
//! nothing of `serve`.

use crate::cluster::MongoError;

pub fn no_such_transaction(m: String) -> MongoError {
    MongoError {
        code: 251,
        code_name: "NoSuchTransaction",
        message: m,
    }
}

pub fn write_conflict() -> MongoError {
    MongoError {
        code: 112,
        code_name: "WriteConflict",
        message: "Caused by :: Write conflict during plan execution and yielding is disabled. :: \
                  Please retry your operation or multi-document transaction."
            .to_string(),
    }
}

pub fn invalid(m: &str) -> MongoError {
    MongoError::invalid_options(m)
}
