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

/// `mongodb://user:secret@host/…` → `mongodb://user:***@host/…`.
pub fn redact(uri: &str) -> String {
    let Some((scheme, rest)) = uri.split_once("://") else {
        return uri.to_string();
    };
    let (authority, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            let masked = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                user.to_string()
            };
            format!("{scheme}://{masked}@{hosts}{tail}")
        }
        None => uri.to_string(),
    }
}

/// The hosts of a URI, for the summary's `source` (never the credentials or options).
pub fn hosts(uri: &str) -> String {
    let rest = uri.split_once("://").map_or(uri, |(_, r)| r);
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let hosts = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let scheme = uri.split_once("://").map_or("mongodb", |(s, _)| s);
    format!("{scheme}://{hosts}")
}

/// The first server's error in a server-selection message (the driver writes its topology
/// there, with its errors in debug form: `Error: Kind: I/O error: …, labels: {…}, source: None`).
fn server_error(message: &str) -> &str {
    message
        .split_once("Error: Kind: ")
        .and_then(|(_, rest)| rest.split(", labels:").next())
        .unwrap_or("no server answered")
}

fn explain(e: &mongodb::error::Error, uri: &str) -> LiveError {
    let target = hosts(uri);
    let message = match &*e.kind {
        ErrorKind::Authentication { message, .. } => format!(
            "authentication to {target} failed ({message}); check the user and password (or authSource) in the URI"
        ),
        ErrorKind::DnsResolve { message, .. } => {
            let message = message.split(" for Query {").next().unwrap_or(message);
            format!("cannot resolve {target} ({message}); check the host name")
        }
        ErrorKind::InvalidTlsConfig { message, .. } => {
            format!("TLS settings rejected for {target}: {message}")
        }
        ErrorKind::ServerSelection { message, .. } => format!(
            "cannot reach {target}: {}; is the mongos running and reachable (host, port, firewall, TLS)?",
            server_error(message)
        ),
        ErrorKind::Io(io) => format!("connection to {target} failed: {io}"),
        ErrorKind::Command(c) if c.code == 13 => format!(
            "not authorized on {target}: {} — `shardtop watch URI --check` lists the privileges each read needs",
            c.message
        ),
        ErrorKind::Command(c) => format!("{target}: {} ({}) {}", c.code_name, c.code, c.message),
        // The kind's own words: the error's `Display` adds `labels: {}, source: None`.
        kind => format!("{target}: {kind}"),
    };
    LiveError {
        message: redact(&message),
        input: false,
        unauthorized: matches!(&*e.kind, ErrorKind::Command(c) if c.code == 13),
        code: match &*e.kind {
            ErrorKind::Command(c) => Some(c.code),
            _ => None,
        },
    }
}

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

/// A connection to a cluster that can only read.
#[derive(Clone, Debug)]
pub struct LiveClient {
    client: Client,
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
            client,
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
            let hello = match self.send("admin", doc! {"hello": 1}).await {
                Err(e) if e.code == Some(59) => self.send("admin", doc! {"isMaster": 1}).await?,
                other => other?,
            };
            check_hello(&self.target(), &hello)?;
            Ok(hello)
        });
        asked.await.clone()
    }

    /// Runs an allowlisted command on `db`.
    pub async fn command(&self, db: &str, cmd: Document) -> Result<Document, LiveError> {
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
        self.send(db, cmd).await
    }

    /// Sends an allowlisted command, marked as the read in flight until its reply.
    async fn send(&self, db: &str, cmd: Document) -> Result<Document, LiveError> {
        let read = read_name(db, &cmd);
        let _waiting = self.in_flight.begin(read.clone());
        self.client
            .database(db)
            .run_command(cmd)
            .await
            .map_err(|e| match &*e.kind {
                // A reply over the size the server's hello advertised (at most 48,000,000).
                ErrorKind::InvalidResponse { message, .. } => LiveError {
                    message: format!("{read}: {}: {message}", self.target()),
                    input: false,
                    unauthorized: false,
                    code: None,
                },
                _ => explain(&e, &self.uri),
            })
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
    /// its [`Bounds`], the cursor is killed and the error returned.
    pub async fn drain_batches(
        &self,
        db: &str,
        cmd: Document,
        mut each: impl FnMut(Vec<Document>) -> Result<(), LiveError>,
    ) -> Result<(), LiveError> {
        // `each` may keep every document (`drain` does): the bound of what is held applies.
        let mut tally = Tally::held(read_name(db, &cmd), self.bounds);
        let mut get_mores = Tally::new(read_name(db, &cmd), self.bounds);
        let mut each = |batch: Vec<Document>| {
            for d in &batch {
                tally.document(crate::wire::document_len(d))?;
            }
            each(batch)
        };
        let mut reply = self.command(db, cmd).await?;
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
                    let _ = self.command(db, kill).await;
                }
                return Err(e);
            }
            if id == 0 {
                return Ok(());
            }
            if let Err(e) = get_mores.get_more() {
                let kill = doc! {"killCursors": coll.clone(), "cursors": [id]};
                let _ = self.command(db, kill).await;
                return Err(e);
            }
            let mut more = self
                .command(db, doc! {"getMore": id, "collection": coll.clone()})
                .await?;
            cursor = take_cursor(&mut more).ok_or_else(bad)?;
            id = cursor.get_i64("id").unwrap_or(0);
            key = "nextBatch";
        }
    }

    /// Every document of `find` on `db.coll` with `filter`, handed to `each` as the driver
    /// delivers it (raw, no `Document` built), batch by batch through the driver's raw batch
    /// cursor; returns how many. When `each` fails or the read passes its [`Bounds`], the cursor
    /// is dropped (the driver kills it).
    pub async fn scan(
        &self,
        db: &str,
        coll: &str,
        filter: Document,
        mut each: impl FnMut(&RawDocument) -> Result<(), LiveError>,
    ) -> Result<usize, LiveError> {
        self.hello().await?;
        let read = format!("find {db}.{coll}");
        let mut tally = Tally::new(read.clone(), self.bounds);
        let failed = |e: mongodb::error::Error| explain(&e, &self.uri);
        let waiting = self.in_flight.begin(read.clone());
        let mut cursor = (self.client.database(db).collection::<RawDocumentBuf>(coll))
            .find(filter)
            .batch_size(10_000)
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
                tally.get_more()?;
            }
            let batch = batch.map_err(failed)?;
            let malformed = |what: String| LiveError {
                message: format!("{read}: {what}"),
                input: false,
                unauthorized: false,
                code: None,
            };
            for d in batch.doc_slices().map_err(failed)? {
                let d = d.map_err(|e| malformed(format!("a malformed batch: {e}")))?;
                let d = d
                    .as_document()
                    .ok_or_else(|| malformed("a batch entry that is not a document".into()))?;
                tally.document(d.as_bytes().len())?;
                each(d)?;
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
        let mut cmd = doc! {"find": coll, "filter": filter, "batchSize": 10_000};
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
mod tests {
    use super::*;

    #[test]
    fn passwords_never_leave() {
        assert_eq!(
            redact("mongodb://ops:s3cret@db1:27017,db2/admin?tls=true"),
            "mongodb://ops:***@db1:27017,db2/admin?tls=true"
        );
        assert_eq!(
            hosts("mongodb+srv://ops:s3cret@cluster0.example.net/?x=1"),
            "mongodb+srv://cluster0.example.net"
        );
        assert_eq!(redact("mongodb://db1"), "mongodb://db1");
    }

    #[tokio::test]
    async fn uri_options_reach_the_driver_as_written_and_the_password_stays() {
        let uri = "mongodb://ops:s3cret@db1:27017,db2/?tls=true&tlsCAFile=/etc/ca.pem&authMechanism=SCRAM-SHA-256&authSource=admin&replicaSet=rs0";
        let o = client_options(uri, Duration::from_secs(3))
            .await
            .expect("parses");
        let c = o.credential.expect("a credential");
        assert_eq!(c.username.as_deref(), Some("ops"));
        assert_eq!(c.source.as_deref(), Some("admin"));
        assert_eq!(
            c.mechanism,
            Some(mongodb::options::AuthMechanism::ScramSha256)
        );
        match o.tls {
            Some(mongodb::options::Tls::Enabled(t)) => {
                assert_eq!(
                    t.ca_file_path.as_deref(),
                    Some(std::path::Path::new("/etc/ca.pem"))
                );
            }
            other => panic!("TLS not as written: {other:?}"),
        }
        assert_eq!(o.hosts.len(), 2);
        assert_eq!(o.repl_set_name.as_deref(), Some("rs0"));
        assert_eq!(o.app_name.as_deref(), Some("shardtop"));
        let bad = "mongodb://ops:s3cret@db1/?tls=maybe";
        let e = client_options(bad, Duration::from_secs(3))
            .await
            .expect_err("refused");
        assert!(e.input && !e.message.contains("s3cret"), "{}", e.message);
        assert_eq!(
            redact("mongodb+srv://ops:s3cret@cluster0.example.net/?authSource=admin"),
            "mongodb+srv://ops:***@cluster0.example.net/?authSource=admin"
        );
    }

    #[test]
    fn driver_errors_are_told_without_their_debug_text() {
        let selection = "No available servers. Topology: { Type: Unknown, Servers: [ { Address: \
                         127.0.0.1:1, Type: Unknown, Error: Kind: I/O error: Connection refused \
                         (os error 111), labels: {\"RetryableError\"}, source: None } ] }";
        assert_eq!(
            server_error(selection),
            "I/O error: Connection refused (os error 111)"
        );
        assert_eq!(server_error("nothing said"), "no server answered");
    }
}
