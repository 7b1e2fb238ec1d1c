//! A panic inside the MongoDB driver (or its BSON crate) is the server's doing — a malformed
//! reply — not shardtop's: it is never printed with a backtrace. The panic hook says nothing for
//! a panic whose place is in those crates (e.g. the driver's background task ending a client's
//! sessions while the runtime shuts down after a reply it could not read), and a one-shot read
//! (`watch --once`, `capture`, `explain`/`whatif` of a URI, `record`, `watch --check`, `lab
//! --from`) that panics ends as a clean error with the exit code of a server that cannot be
//! read (1).
//!
//! Owns: the process's panic hook filter and the one-shot block. May not touch: the reads.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use super::super::Failure;

/// Whether `file`, a panic's place, is in the source of the `mongodb` or `bson` crate (a
/// registry's `mongodb-3.9.1/src/…`, a vendored `mongodb/src/…`), never shardtop's own.
pub fn is_driver_file(file: &str) -> bool {
    let parts: Vec<&str> = file.split(['/', '\\']).collect();
    parts.windows(2).any(|w| {
        let crate_dir = w[0];
        let named = ["mongodb", "bson"].iter().any(|name| {
            crate_dir == *name
                || crate_dir
                    .strip_prefix(name)
                    .and_then(|v| v.strip_prefix('-'))
                    .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        });
        named && w[1] == "src"
    })
}

/// Puts the filter in front of the panic hook in place: a driver's panic prints nothing, any
/// other goes on to it (a panic of shardtop's is a bug and says so).
pub fn install() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.location().is_some_and(|l| is_driver_file(l.file())) {
            return;
        }
        previous(info);
    }));
}

/// The panic's message, when it has one.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

/// Runs the one-shot read `fut` to its end on `rt`; a panic inside it is an error naming
/// `source` (exit 1, as for a server that cannot be read).
pub fn block_on<F: Future>(
    rt: &tokio::runtime::Runtime,
    source: &str,
    fut: F,
) -> Result<F::Output, Failure> {
    std::panic::catch_unwind(AssertUnwindSafe(|| rt.block_on(fut))).map_err(|payload| {
        Failure::runtime(format!(
            "{source}: the reply could not be read (the MongoDB driver failed on it: {}); is it a \
             mongos answering as one?",
            message(payload.as_ref())
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_in_the_driver_or_bson_crate_is_the_drivers() {
        for file in [
            "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/mongodb-3.9.1/src/cmap/connection_requester.rs",
            "/home/u/.cargo/registry/src/index.crates.io-x/bson-2.15.0/src/raw/document.rs",
            "vendor/mongodb/src/client.rs",
            "C:\\Users\\u\\.cargo\\registry\\src\\x\\mongodb-3.9.1\\src\\client.rs",
        ] {
            assert!(is_driver_file(file), "{file}");
        }
        for file in [
            "src/live/client.rs",
            "/work/shardtop/src/commands/watch.rs",
            "/root/.cargo/registry/src/x/mongodb-internal-macros-3.0.0/src/lib.rs",
            "/root/.cargo/registry/src/x/tokio-1.54.0/src/runtime/task/harness.rs",
            "mongodb-notes/readme.rs",
        ] {
            assert!(!is_driver_file(file), "{file}");
        }
    }

    #[test]
    fn a_panic_in_a_one_shot_read_is_an_error_naming_the_source() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let done = block_on(&rt, "mongodb://h:1", async { 7 });
        assert_eq!(done.map_err(|f| f.message), Ok(7));
        let failed = block_on(&rt, "mongodb://h:1", async {
            assert!(!rt_is_here(), "malformed reply");
        });
        let failure = failed.expect_err("an error");
        assert_eq!(failure.code, 1);
        assert!(
            failure.message.starts_with(
                "mongodb://h:1: the reply could not be read (the MongoDB driver failed on it: malformed reply)"
            ),
            "{}",
            failure.message
        );
    }

    fn rt_is_here() -> bool {
        tokio::runtime::Handle::try_current().is_ok()
    }
}
