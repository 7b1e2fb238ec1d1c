//! The connection loop the test mongoses share (tests/live's `real_mongos`, `hostile_mongos`): each message
//! read, parsed and answered in the opcode it came in. Owns no answer: each mongos gives its own.

use std::future::Future;

use bson::Document;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// Accepts connections on `listener` and answers each command with `answer`; `None` is silence:
/// the connection stays open and nothing more is said on it.
pub fn accept<F, Fut>(listener: TcpListener, answer: F) -> tokio::task::JoinHandle<()>
where
    F: Fn(Document) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Option<Document>> + Send,
{
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let answer = answer.clone();
            tokio::spawn(async move {
                while let Ok(bytes) = shardtop::wire::read_message(&mut socket).await {
                    let Ok(mut req) = shardtop::wire::parse(&bytes) else {
                        return;
                    };
                    let Some(reply) = answer(std::mem::take(&mut req.command)).await else {
                        std::future::pending::<()>().await;
                        return;
                    };
                    if req.more_to_come {
                        continue;
                    }
                    if socket
                        .write_all(&req.encode_answer(1, &reply))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    })
}
