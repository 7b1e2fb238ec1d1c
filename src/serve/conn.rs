//! One client connection: read a message, answer the command against the shared state, write the
//! reply (OP_MSG, or OP_REPLY to a legacy OP_QUERY; nothing for moreToCome). A malformed or
//! oversized message, or an I/O error, closes this connection only, with one log line.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::watch;

use super::log::{self, CommandLog};
use super::shared::Shared;
use super::state::Context;
use crate::wire::{self, ReadError};

const READ_BUFFER: usize = 64 << 10;

static NEXT_REQUEST_ID: AtomicI32 = AtomicI32::new(1);

pub(super) struct Connection {
    pub id: i64,
    pub peer: SocketAddr,
    pub shared: Arc<Shared>,
    pub log: Option<Arc<CommandLog>>,
    pub shutdown: watch::Receiver<bool>,
}

impl Connection {
    pub async fn serve(mut self, stream: TcpStream) {
        let _ = stream.set_nodelay(true);
        let (reader, mut writer) = stream.into_split();
        // One read system call for most messages instead of two (their length, then the rest).
        let mut reader = tokio::io::BufReader::with_capacity(READ_BUFFER, reader);
        loop {
            let bytes = tokio::select! {
                r = wire::read_message(&mut reader) => r,
                _ = self.shutdown.changed() => return,
            };
            let bytes = match bytes {
                Ok(b) => b,
                Err(ReadError::Closed) => return,
                Err(ReadError::Io(e)) => return self.close(&format!("read failed: {e}")),
                Err(ReadError::Wire(e)) => return self.close(&e.to_string()),
            };
            let request = match wire::parse(&bytes) {
                Ok(r) => r,
                Err(e) => return self.close(&e.to_string()),
            };
            let ctx = Context {
                connection_id: self.id,
                peer: self.peer,
            };
            let shared = Arc::clone(&self.shared);
            let Some(reply) = shared
                .answer(&request.command, ctx, &mut self.shutdown)
                .await
            else {
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
            if let Err(e) = writer.write_all(&out).await {
                return self.close(&format!("write failed: {e}"));
            }
        }
    }

    fn close(&self, why: &str) {
        log::line(
            self.log.as_deref(),
            &format!("connection {} from {} closed: {why}", self.id, self.peer),
        );
    }
}
