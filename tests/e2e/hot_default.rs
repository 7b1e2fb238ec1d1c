//! HOT on a live cluster by default: a client inserts ascending keys through `shardtop serve`
//! (the real driver), and `watch` with no `--heat` flag — `auto` picks change streams, which
//! this user may open — shows the shard taking the inserts `◀ HOT`, naming its evidence, within
//! a few polls; the event log and the header say which signal `auto` chose and why.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bson::{Document, doc};
use common::tmux::{START, Tmux, serve_child};

/// `serve` ended with the test, whatever happens.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `app.events` sharded on `{ts: 1}` in two chunks on two shards: `[MinKey, 0)` moved away
/// from the primary, `[0, MaxKey)` left on it, where every ascending key from 0 lands.
async fn two_chunks(client: &mongodb::Client) -> String {
    let admin = client.database("admin");
    admin
        .run_command(doc! {"shardCollection": "app.events", "key": {"ts": 1}})
        .await
        .unwrap();
    admin
        .run_command(doc! {"split": "app.events", "middle": {"ts": 0}})
        .await
        .unwrap();
    let chunk = client
        .database("config")
        .collection::<Document>("chunks")
        .find_one(doc! {})
        .await
        .unwrap()
        .unwrap();
    let owner = chunk.get_str("shard").unwrap().to_string();
    let shards = admin.run_command(doc! {"listShards": 1}).await.unwrap();
    let other = shards
        .get_array("shards")
        .unwrap()
        .iter()
        .filter_map(|s| s.as_document()?.get_str("_id").ok())
        .find(|id| *id != owner)
        .unwrap()
        .to_string();
    admin
        .run_command(doc! {"moveChunk": "app.events", "find": {"ts": -1}, "to": &other})
        .await
        .unwrap();
    owner
}

#[test]
fn watch_with_no_heat_flag_shows_an_ascending_hotspot_and_its_evidence() {
    let (child, addr) = serve_child(&["--listen", "127.0.0.1:0"]);
    let _served = Child(child);
    let uri = format!("mongodb://{addr}/?directConnection=true");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let client = rt.block_on(mongodb::Client::with_uri_str(&uri)).unwrap();
    let owner = rt.block_on(two_chunks(&client));
    let t = Tmux::start(&format!("watch '{uri}' --interval 500ms"), 120, 36);
    t.wait_for("● live", START);
    // The event log is drawn below the header: wait for its line, not for the first rows drawn.
    let screen = t.wait_for("heat: auto: this user may open change streams", START);
    assert!(screen.contains("heat changestream (auto)"), "{screen}");
    // The client: batches of ascending keys until the test ends.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let events = client.database("app").collection::<Document>("events");
        rt.spawn(async move {
            let mut ts = 0i64;
            while !stop.load(Ordering::Relaxed) {
                let batch: Vec<Document> = (0..50)
                    .map(|i| doc! {"ts": ts + i, "pad": "x".repeat(100)})
                    .collect();
                events.insert_many(batch).await.unwrap();
                ts += 50;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    let screen = t.wait_for("◀ HOT (change stream)", Duration::from_secs(30));
    let hot = screen
        .lines()
        .find(|l| l.contains("◀ HOT"))
        .unwrap_or_default();
    assert!(
        hot.contains(&owner),
        "the shard taking the inserts is HOT:\n{screen}"
    );
    stop.store(true, Ordering::Relaxed);
    rt.block_on(writer).unwrap();
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}
