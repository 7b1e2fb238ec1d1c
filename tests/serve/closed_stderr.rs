//! The real `shardtop serve` started as the tests start it: its stderr read for the address, then
//! closed. The lines it writes there later (an expired cursor, an aborted transaction) are lost;
//! the task that writes them goes on. Seen in the soak: the first such line stopped the ticker, and
//! with it the cursor timeout, the transaction lifetime and the simulator's clock.

use crate::common;

use std::time::{Duration, Instant};

use bson::{Document, doc};
use mongodb::Client;

/// The simulator's clock (`serverStatus.shardtop.virtualTimeMillis`).
async fn clock(client: &Client) -> i64 {
    let status = common::admin(client, doc! { "serverStatus": 1 })
        .await
        .unwrap();
    status
        .get_document("shardtop")
        .unwrap()
        .get_i64("virtualTimeMillis")
        .unwrap()
}

/// Opens a cursor left unread, then waits (up to 10 s) until the server has killed it.
async fn a_cursor_expires(client: &Client) {
    let reply = client
        .database("app")
        .run_command(doc! { "find": "c", "batchSize": 1 })
        .await
        .unwrap();
    assert_ne!(
        reply.get_document("cursor").unwrap().get_i64("id").unwrap(),
        0
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while common::open_cursors(client).await > 0 {
        assert!(
            Instant::now() < deadline,
            "the cursor timeout no longer runs"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The serve process, killed however the test ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn serve_goes_on_when_its_stderr_is_closed() {
    let (child, addr) = common::tmux::serve_child(&["--listen", "127.0.0.1:0"]);
    let _serve = Killed(child);
    let uri = format!("mongodb://{addr}/?directConnection=true");
    let client = Client::with_uri_str(&uri).await.unwrap();
    client
        .database("admin")
        .run_command(doc! { "setParameter": 1, "cursorTimeoutMillis": 300 })
        .await
        .unwrap();
    client
        .database("app")
        .collection::<Document>("c")
        .insert_many((0..3).map(|i| doc! { "_id": i }))
        .await
        .unwrap();
    // The first expiry writes "killed 1 cursors unread" to the closed stderr; the second needs
    // the ticker still running after it.
    a_cursor_expires(&client).await;
    let before = clock(&client).await;
    a_cursor_expires(&client).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = clock(&client).await;
    assert!(
        after > before,
        "the simulator's clock stopped at {before} ms"
    );
}
