//! The only way the live source talks to a cluster: commands by name through an allowlist of
//! read commands (anything else is refused before it leaves the process), cursors drained with
//! `getMore`, and errors turned into messages an on-call engineer can act on — never showing
//! the password of the URI.

use std::time::Duration;

use bson::{Document, RawDocument, RawDocumentBuf, doc};
use std::sync::Arc;

use futures::StreamExt;
use mongodb::Client;
use mongodb::error::ErrorKind;
use mongodb::options::ClientOptions;
use tokio::sync::OnceCell;

use super::bounds::{Bounds, InFlight, Tally, check_hello, read_name};
use crate::capture::Outcome;
pub use captured::NOT_IN_CAPTURE;
use captured::{Backend, Keep};

mod captured;
mod close;
mod errors;
mod redact;
pub use redact::{hosts, redact};
pub mod script;
pub use close::CLOSE_WITHIN;

#[cfg(test)]
use errors::server_error;
use errors::{command_error, explain};

/// The commands the live source may send (the driver adds its own handshake, `ping`-like
/// monitoring and `endSessions`).
pub const ALLOWED: &[&str] = &[
    "hello",
    "isMaster",
    "buildInfo",
    "find",
    "getMore",
    "killCursors",
    "aggregate",
    "balancerStatus",
    "balancerCollectionStatus",
    "connectionStatus",
    "listIndexes",
    // Reads only: the mongos forwards `_configsvrShardDrainingStatus`, which counts
    // `config.shards`, `config.chunks`, `config.databases` and the catalog and writes nothing
    // (mongo `src/mongo/s/commands/cluster_shard_draining_status_cmd.cpp`,
    // `db/s/config/configsvr_shard_draining_status_command.cpp`,
    // `ShardingCatalogManager::checkDrainingProgress` / `appendShardDrainingStatus`).
    "shardDrainingStatus",
];

/// The documents a `find` asks per batch (`batchSize`).
pub const FIND_BATCH: i32 = 10_000;

/// A failure to read the cluster, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveError {
    pub message: String,
    /// Bad input (a malformed URI) rather than a runtime failure.
    pub input: bool,
    /// The server refused the command to this user (Unauthorized, 13): a missing privilege.
    pub unauthorized: bool,
    /// The server answered with this error code (the command reached it and was refused);
    /// `None` for a failure to reach it or to parse the URI.
    pub code: Option<i32>,
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LiveError {}

/// The driver's options from the URI as written (`mongodb+srv://`, TLS, `authMechanism`,
/// `authSource`… all the driver's), plus shardtop's app name and timeouts.
pub async fn client_options(uri: &str, timeout: Duration) -> Result<ClientOptions, LiveError> {
    if let Some(e) = super::missing_scheme(uri) {
        return Err(e);
    }
    let mut options = ClientOptions::parse(uri).await.map_err(|e| {
        let input = matches!(&*e.kind, ErrorKind::InvalidArgument { .. });
        if !input {
            return explain(&e, uri);
        }
        LiveError {
            message: redact(&format!(
                "{}: {}",
                if input {
                    "malformed URI"
                } else {
                    "cannot use the URI"
                },
                e.kind
            )),
            input,
            unauthorized: false,
            code: None,
        }
    })?;
    options.app_name = Some("shardtop".into());
    options.server_selection_timeout = Some(timeout);
    options.connect_timeout = Some(timeout);
    Ok(options)
}

/// A connection to a cluster that can only read (or, for `open`, a capture answering as one).
#[derive(Clone, Debug)]
pub struct LiveClient {
    backend: Backend,
    /// Keeps every read and its answer (`capture`).
    recorder: Option<Arc<crate::capture::Recorder>>,
    uri: String,
    /// What one read may bring.
    bounds: Bounds,
    /// The read waited for now.
    in_flight: InFlight,
    /// The server's `hello` (or `isMaster`), asked once before any other command.
    hello: Arc<OnceCell<Result<Document, LiveError>>>,
}

impl LiveClient {
    /// Parses the URI and prepares the client (the driver connects lazily).
    pub async fn connect(uri: &str, timeout: Duration) -> Result<Self, LiveError> {
        let options = client_options(uri, timeout).await?;
        let client = Client::with_options(options).map_err(|e| explain(&e, uri))?;
        Ok(Self {
            backend: Backend::Network(client),
            recorder: None,
            uri: uri.to_string(),
            bounds: Bounds::default(),
            in_flight: InFlight::default(),
            hello: Arc::new(OnceCell::new()),
        })
    }

    /// The same client with other bounds on each read.
    #[must_use]
    pub fn with_bounds(mut self, bounds: Bounds) -> Self {
        self.bounds = bounds;
        self
    }

    /// The read the client waits for now, and for how long.
    pub fn waiting_for(&self) -> Option<(String, Duration)> {
        self.in_flight.now()
    }

    /// The server's `hello` reply, asked once: `hello` arrived in 4.4.2 (and 5.0); before it a
    /// mongos answers CommandNotFound (59) and knows `isMaster`, as drivers fall back (mongo
    /// `src/mongo/s/commands/cluster_hello_cmd.cpp`). A server advertising a
    /// `maxMessageSizeBytes` larger than a real one is refused before any read.
    pub async fn hello(&self) -> Result<Document, LiveError> {
        let asked = self.hello.get_or_init(|| async {
            let hello = match self.send("admin", doc! {"hello": 1}, Keep::Whole).await {
                Err(e) if e.code == Some(59) => {
                    self.send("admin", doc! {"isMaster": 1}, Keep::Whole)
                        .await?
                }
                other => other?,
            };
            check_hello(&self.target(), &hello)?;
            Ok(hello)
        });
        asked.await.clone()
    }

    /// Runs an allowlisted command on `db` (kept whole when capturing).
    pub async fn command(&self, db: &str, cmd: Document) -> Result<Document, LiveError> {
        self.command_kept(db, cmd, Keep::Whole).await
    }

    /// Runs an allowlisted command; `keep`: what a capture keeps of it (of a cursor's first
    /// command only a refusal, of its `getMore`s nothing: `drain_batches` keeps its documents).
    async fn command_kept(
        &self,
        db: &str,
        cmd: Document,
        keep: Keep,
    ) -> Result<Document, LiveError> {
        let name = cmd.keys().next().map_or("", String::as_str);
        if !ALLOWED.contains(&name) {
            return Err(LiveError {
                message: format!(
                    "shardtop refused to send {name:?}: it is not one of the read commands it allows"
                ),
                input: false,
                unauthorized: false,
                code: None,
            });
        }
        if name != "hello" && name != "isMaster" {
            self.hello().await?;
        }
        self.send(db, cmd, keep).await
    }

    /// Sends an allowlisted command, marked as the read in flight until its reply (or answers it
    /// from the capture opened).
    async fn send(&self, db: &str, cmd: Document, keep: Keep) -> Result<Document, LiveError> {
        let read = read_name(db, &cmd);
        let client = match &self.backend {
            Backend::Network(c) => c,
            Backend::Capture(replay) => return self.replayed_reply(replay, db, &cmd),
        };
        let _waiting = self.in_flight.begin(read.clone());
        let kept = self.recorder.as_ref().filter(|_| keep != Keep::Nothing);
        let kept = kept.map(|r| (r, cmd.clone()));
        let result = client.database(db).run_command(cmd).await;
        let result = result.map_err(|e| {
            let live = match &*e.kind {
                // A reply over the size the server's hello advertised (at most 48,000,000).
                ErrorKind::InvalidResponse { message, .. } => LiveError {
                    message: format!("{read}: {}: {message}", self.target()),
                    input: false,
                    unauthorized: false,
                    code: None,
                },
                _ => explain(&e, &self.uri),
            };
            (captured::refusal(&e, &live), live)
        });
        if let Some((r, cmd)) = kept {
            match &result {
                Ok(reply) if keep == Keep::Whole => r.keep(db, cmd, Outcome::Reply(reply.clone())),
                Ok(_) => {}
                Err((outcome, _)) => r.keep(db, cmd, outcome.clone()),
            }
        }
        result.map_err(|(_, live)| live)
    }

    /// Every document of a `find` (or `aggregate`) cursor, following `getMore`.
    pub async fn drain(&self, db: &str, cmd: Document) -> Result<Vec<Document>, LiveError> {
        let mut out = Vec::new();
        self.drain_batches(db, cmd, |batch| {
            out.extend(batch);
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// A cursor's documents batch by batch, following `getMore`: `each` gets every batch as it
    /// arrives (so a large result need not be held whole). When `each` fails, or the read passes
    /// its [`Bounds`], the cursor is killed and the error returned. Capturing, every document is
    /// kept (or the error); replaying a capture, its documents come as one batch.
    pub async fn drain_batches(
        &self,
        db: &str,
        cmd: Document,
        mut each: impl FnMut(Vec<Document>) -> Result<(), LiveError>,
    ) -> Result<(), LiveError> {
        // `each` may keep every document (`drain` does): the bound of what is held applies.
        let mut tally = Tally::held(read_name(db, &cmd), self.bounds);
        let mut each = |batch: Vec<Document>| {
            for d in &batch {
                tally.document(crate::wire::document_len(d))?;
            }
            each(batch)
        };
        if let Backend::Capture(replay) = &self.backend {
            self.hello().await?;
            return each(self.replayed_documents(replay, db, &cmd)?);
        }
        let Some(recorder) = self.recorder.clone() else {
            return self.drain_network(db, cmd, each).await;
        };
        let (mut docs, before) = (Vec::new(), recorder.len());
        let drained = self.drain_network(db, cmd.clone(), |batch| {
            docs.extend(batch.iter().cloned());
            each(batch)
        });
        let result = drained.await;
        match &result {
            Ok(()) => recorder.keep(db, cmd, Outcome::Documents(docs)),
            // Its first command's refusal is kept already, in the server's words.
            Err(e) if recorder.len() == before => recorder.keep(db, cmd, captured::failed(e)),
            Err(_) => {}
        }
        result
    }

    /// A cursor drained from the cluster.
    async fn drain_network(
        &self,
        db: &str,
        cmd: Document,
        mut each: impl FnMut(Vec<Document>) -> Result<(), LiveError>,
    ) -> Result<(), LiveError> {
        let mut get_mores = Tally::new(read_name(db, &cmd), self.bounds);
        let mut reply = self.command_kept(db, cmd, Keep::Refusal).await?;
        let bad = || LiveError {
            message: format!("{}: a cursor reply without `cursor`", hosts(&self.uri)),
            input: false,
            unauthorized: false,
            code: None,
        };
        let mut cursor = take_cursor(&mut reply).ok_or_else(bad)?;
        let mut id = cursor.get_i64("id").unwrap_or(0);
        let ns = cursor.get_str("ns").unwrap_or_default().to_string();
        let coll = ns
            .split_once('.')
            .map_or(ns.as_str(), |(_, c)| c)
            .to_string();
        let mut key = "firstBatch";
        loop {
            if let Err(e) = each(take_batch(&mut cursor, key)) {
                if id != 0 {
                    let kill = doc! {"killCursors": coll.clone(), "cursors": [id]};
                    let _ = self.command_kept(db, kill, Keep::Nothing).await;
                }
                return Err(e);
            }
            if id == 0 {
                return Ok(());
            }
            if let Err(e) = get_mores.get_more() {
                let kill = doc! {"killCursors": coll.clone(), "cursors": [id]};
                let _ = self.command_kept(db, kill, Keep::Nothing).await;
                return Err(e);
            }
            let more = doc! {"getMore": id, "collection": coll.clone()};
            let mut more = self.command_kept(db, more, Keep::Nothing).await?;
            cursor = take_cursor(&mut more).ok_or_else(bad)?;
            id = cursor.get_i64("id").unwrap_or(0);
            key = "nextBatch";
        }
    }

    /// Every document of `find` on `db.coll` with `filter`, handed to `each` as the driver
    /// delivers it (raw, no `Document` built), batch by batch through the driver's raw batch
    /// cursor; returns how many. When `each` fails or the read passes its [`Bounds`], the cursor
    /// is dropped (the driver kills it). Capturing, every document is kept (or the error).
    pub async fn scan(
        &self,
        db: &str,
        coll: &str,
        filter: Document,
        mut each: impl FnMut(&RawDocument) -> Result<(), LiveError>,
    ) -> Result<usize, LiveError> {
        self.hello().await?;
        if let Backend::Capture(replay) = &self.backend {
            return self.replayed_scan(replay, (db, coll), filter, each);
        }
        let Some(recorder) = self.recorder.clone() else {
            return (self.scan_network(db, coll, filter, each).await).map_err(|(_, e)| e);
        };
        let mut docs = Vec::new();
        let scanned = self.scan_network(db, coll, filter.clone(), |raw| {
            docs.push(captured::owned(raw)?);
            each(raw)
        });
        let result = scanned.await;
        let outcome = match &result {
            Ok(_) => Outcome::Documents(docs),
            Err((outcome, _)) => outcome.clone(),
        };
        recorder.keep(db, captured::scan_command(coll, filter), outcome);
        result.map_err(|(_, e)| e)
    }

    /// A scan from the cluster; an error also as a capture keeps it.
    async fn scan_network(
        &self,
        db: &str,
        coll: &str,
        filter: Document,
        mut each: impl FnMut(&RawDocument) -> Result<(), LiveError>,
    ) -> Result<usize, (Outcome, LiveError)> {
        let Backend::Network(client) = &self.backend else {
            return Err(captured::no_network());
        };
        let read = format!("find {db}.{coll}");
        let mut tally = Tally::new(read.clone(), self.bounds);
        let failed = |e: mongodb::error::Error| {
            let live = explain(&e, &self.uri);
            (captured::refusal(&e, &live), live)
        };
        let plain = |e: LiveError| (captured::failed(&e), e);
        let waiting = self.in_flight.begin(read.clone());
        let mut cursor = (client.database(db).collection::<RawDocumentBuf>(coll))
            .find(filter)
            .batch_size(FIND_BATCH as u32)
            .batch()
            .await
            .map_err(failed)?;
        drop(waiting);
        let mut n = 0;
        let mut first = true;
        loop {
            let waiting = self.in_flight.begin(read.clone());
            let Some(batch) = cursor.next().await else {
                return Ok(n);
            };
            drop(waiting);
            if !std::mem::take(&mut first) {
                tally.get_more().map_err(plain)?;
            }
            let batch = batch.map_err(failed)?;
            let malformed = |what: String| {
                plain(LiveError {
                    message: format!("{read}: {what}"),
                    input: false,
                    unauthorized: false,
                    code: None,
                })
            };
            for d in batch.doc_slices().map_err(failed)? {
                let d = d.map_err(|e| malformed(format!("a malformed batch: {e}")))?;
                let d = d
                    .as_document()
                    .ok_or_else(|| malformed("a batch entry that is not a document".into()))?;
                tally.document(d.as_bytes().len()).map_err(plain)?;
                each(d).map_err(plain)?;
                n += 1;
            }
        }
    }

    /// `find` on `db.coll` with a filter, an optional sort and projection.
    pub async fn find(
        &self,
        db: &str,
        coll: &str,
        filter: Document,
        sort: Option<Document>,
        projection: Option<Document>,
    ) -> Result<Vec<Document>, LiveError> {
        let mut cmd = doc! {"find": coll, "filter": filter, "batchSize": FIND_BATCH};
        if let Some(s) = sort {
            cmd.insert("sort", s);
        }
        if let Some(p) = projection {
            cmd.insert("projection", p);
        }
        self.drain(db, cmd).await
    }

    pub fn target(&self) -> String {
        hosts(&self.uri)
    }
}

fn take_cursor(reply: &mut Document) -> Option<Document> {
    match reply.remove("cursor") {
        Some(bson::Bson::Document(d)) => Some(d),
        _ => None,
    }
}

/// The documents of a batch, moved out of the reply (not copied).
fn take_batch(cursor: &mut Document, key: &str) -> Vec<Document> {
    match cursor.remove(key) {
        Some(bson::Bson::Array(a)) => a
            .into_iter()
            .filter_map(|d| match d {
                bson::Bson::Document(d) => Some(d),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
