//! One client connection: read a message, answer the command against the shared state, write the
//! reply (OP_MSG, or OP_REPLY to a legacy OP_QUERY; nothing for moreToCome). A malformed or
//! oversized message, or an I/O error, closes this connection only, with one log line. A message
//! must arrive whole within [`MESSAGE_DEADLINE`] of its first byte, the bytes of messages being
//! received are bounded over all connections ([`PARTIAL_BUDGET`]), and an idle connection is
//! closed when the server runs short of connection slots ([`IDLE_WHEN_FULL`]); when every slot is
//! taken, a new connection takes the slot of the one that has waited longest for a whole message
//! (`slots`): no client can hold a slot or memory by sending slowly.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedReadHalf;
use tokio::sync::{Semaphore, watch};

use crate::serve::net::shared::Shared;
use crate::serve::net::slots::Slot;
use crate::serve::state::Context;
use crate::serve::state::log::{self, CommandLog};
use crate::wire::{self, ReadError, WireError};

const READ_BUFFER: usize = 64 << 10;

/// A whole message must arrive within this time of its first byte.
pub const MESSAGE_DEADLINE: Duration = Duration::from_secs(60);
/// A connection idle this long is closed when fewer than a quarter of the slots are free.
pub const IDLE_WHEN_FULL: Duration = Duration::from_secs(30);
/// Bytes of messages being received held at most, over all connections (by declared length).
pub const PARTIAL_BUDGET: usize = 256 << 20;

/// Bytes of messages being received, over all connections.
static PARTIAL_BYTES: AtomicUsize = AtomicUsize::new(0);

/// A message's declared bytes counted against [`PARTIAL_BUDGET`] while it is received.
struct Reservation(usize);

impl Reservation {
    fn take(n: usize) -> Option<Self> {
        let before = PARTIAL_BYTES.fetch_add(n, Ordering::AcqRel);
        if before + n > PARTIAL_BUDGET {
            PARTIAL_BYTES.fetch_sub(n, Ordering::AcqRel);
            return None;
        }
        Some(Self(n))
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        PARTIAL_BYTES.fetch_sub(self.0, Ordering::AcqRel);
    }
}

/// Why no message came.
enum Ended {
    /// The peer closed, or the server shuts down: nothing to log.
    Quietly,
    /// Closed for this reason (logged).
    Because(String),
}

/// A client that simply left between messages (closed its socket with a reset, as a killed
/// process or a driver's pool does): not worth a log line, as a clean close is not.
fn left(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset};
    matches!(e.kind(), ConnectionReset | ConnectionAborted | BrokenPipe)
}

static NEXT_REQUEST_ID: AtomicI32 = AtomicI32::new(1);

pub(crate) struct Connection {
    pub id: i64,
    pub peer: SocketAddr,
    pub shared: Arc<Shared>,
    pub log: Option<Arc<CommandLog>>,
    pub shutdown: watch::Receiver<bool>,
    /// The server's connection slots (to see when they run short).
    pub slots: Arc<Semaphore>,
    /// The server's connection counters (and its limit).
    pub connections: Arc<crate::serve::state::connections::Connections>,
    /// A message must arrive whole within this time of its first byte ([`MESSAGE_DEADLINE`]).
    pub message_deadline: Duration,
    /// Its place among the slots: what it waits for, and the word that its slot is taken.
    pub slot: Arc<Slot>,
}

/// Why a connection's slot went to a newcomer.
fn evicted() -> Ended {
    Ended::Because(format!(
        "closed for a new connection: every slot taken, and this one had waited over {} ms for a whole message",
        super::slots::GRACE.as_millis()
    ))
}

impl Connection {
    pub async fn serve(mut self, stream: TcpStream) {
        let _ = stream.set_nodelay(true);
        let (reader, mut writer) = stream.into_split();
        // One read system call for most messages instead of two (their length, then the rest).
        let mut reader = BufReader::with_capacity(READ_BUFFER, reader);
        loop {
            let bytes = match self.next_message(&mut reader).await {
                Ok(b) => b,
                Err(Ended::Quietly) => return,
                Err(Ended::Because(why)) => return self.close(&why),
            };
            let request = match wire::parse(&bytes) {
                Ok(r) => r,
                Err(e @ (WireError::TooDeep(_) | WireError::ObjectTooLarge(..))) => {
                    if let Err(e) = self.refuse(&bytes, &e, &mut writer).await {
                        return self.close(&format!("write failed: {e}"));
                    }
                    continue;
                }
                Err(e) => return self.close(&e.to_string()),
            };
            let ctx = Context {
                connection_id: self.id,
                peer: self.peer,
            };
            let shared = Arc::clone(&self.shared);
            self.connections.busy(true);
            let answered = shared
                .answer(&request.command, ctx, &mut self.shutdown)
                .await;
            self.connections.busy(false);
            let Some(reply) = answered else {
                return;
            };
            if request.more_to_come {
                continue;
            }
            let id = NEXT_REQUEST_ID.fetch_add(1, Ordering::Relaxed);
            let (rid, len) = (request.request_id, reply.encoded_len());
            let out = if request.legacy {
                wire::encode_reply_with(id, rid, len, |out| reply.write(out))
            } else {
                wire::encode_msg_with(id, rid, len, |out| reply.write(out))
            };
            match writer.write_all(&out).await {
                Err(e) if left(&e) => return,
                Err(e) => return self.close(&format!("write failed: {e}")),
                Ok(()) => {}
            }
        }
    }

    /// The next message: waits while the connection is idle (closing it when idle and slots run
    /// short), then reads one within the message deadline and [`PARTIAL_BUDGET`].
    async fn next_message(
        &mut self,
        reader: &mut BufReader<OwnedReadHalf>,
    ) -> Result<Vec<u8>, Ended> {
        loop {
            tokio::select! {
                r = reader.fill_buf() => match r {
                    Ok([]) => return Err(Ended::Quietly),
                    Ok(_) => {
                        self.slot.message_started();
                        break;
                    }
                    Err(e) if left(&e) => return Err(Ended::Quietly),
                    Err(e) => return Err(Ended::Because(format!("read failed: {e}"))),
                },
                () = tokio::time::sleep(IDLE_WHEN_FULL) => {
                    if self.slots.available_permits() < self.connections.limit / 4 {
                        return Err(Ended::Because(format!(
                            "idle for {} s while connection slots run short",
                            IDLE_WHEN_FULL.as_secs()
                        )));
                    }
                }
                () = self.slot.evicted.notified() => return Err(evicted()),
                _ = self.shutdown.changed() => return Err(Ended::Quietly),
            }
        }
        let read = async {
            let total = wire::read_length(reader).await?;
            let Some(_held) = Reservation::take(total) else {
                return Ok(None);
            };
            wire::read_rest(reader, total).await.map(Some)
        };
        let read = tokio::select! {
            r = tokio::time::timeout(self.message_deadline, read) => r,
            () = self.slot.evicted.notified() => return Err(evicted()),
            _ = self.shutdown.changed() => return Err(Ended::Quietly),
        };
        match read {
            Ok(Ok(Some(bytes))) => {
                self.slot.message_whole();
                Ok(bytes)
            }
            Ok(Ok(None)) => Err(Ended::Because(format!(
                "messages being received already hold {PARTIAL_BUDGET} bytes"
            ))),
            Ok(Err(ReadError::Closed)) => Err(Ended::Quietly),
            Ok(Err(ReadError::Io(e))) => Err(Ended::Because(format!("read failed: {e}"))),
            Ok(Err(ReadError::Wire(e))) => Err(Ended::Because(e.to_string())),
            Err(_) => Err(Ended::Because(format!(
                "message not received whole within {} ms of its first byte",
                self.message_deadline.as_millis()
            ))),
        }
    }

    /// Answers a message whose command cannot be read with the server's error (Overflow for a
    /// document nested too deep, BSONObjectTooLarge for one over 16 MiB + 16 KiB), keeping the
    /// connection, as `validateBSON`'s callers do.
    async fn refuse(
        &self,
        bytes: &[u8],
        e: &WireError,
        writer: &mut tokio::net::tcp::OwnedWriteHalf,
    ) -> std::io::Result<()> {
        log::line(
            self.log.as_deref(),
            &format!("connection {} from {}: refused: {e}", self.id, self.peer),
        );
        let Ok(header) = wire::Header::read(bytes) else {
            return Ok(());
        };
        let (code, code_name) = match e {
            WireError::ObjectTooLarge(..) => (10334, "BSONObjectTooLarge"),
            _ => (15, "Overflow"),
        };
        let reply = crate::serve::reply::error(&crate::cluster::MongoError {
            code,
            code_name,
            message: e.to_string(),
        });
        let id = NEXT_REQUEST_ID.fetch_add(1, Ordering::Relaxed);
        let out = if header.op_code == wire::OP_QUERY {
            wire::encode_reply(id, header.request_id, &reply)
        } else {
            wire::encode_msg(id, header.request_id, &reply)
        };
        writer.write_all(&out).await
    }

    fn close(&self, why: &str) {
        log::line(
            self.log.as_deref(),
            &format!("connection {} from {} closed: {why}", self.id, self.peer),
        );
    }
}
