// Admin commands in the server's words and order (issue 33), through mongosh's helpers against
// --server-version 8.0. Each expectation cites the server's source (mongo repository paths):
// - configureQueryAnalyzer on a collection that does not exist: NamespaceNotFound (26), "The
//   namespace does not exist" (`s/analyze_shard_key_util.cpp`, validateCollectionOptions);
// - moveChunk to a shard that does not exist: ShardNotFound (70), "Could not move chunk in <ns>
//   to <shard> because that shard does not exist" (`s/commands/cluster_move_chunk_cmd.cpp`, log
//   22755 with UserAssertAfterLog), after the namespace check (NamespaceNotSharded first);
// - config.settings' balancer `activeWindow` is stored as written and read back, malformed ones
//   refused in BalancerSettingsType's words (`s/balancer_configuration.cpp`), and the balancer
//   runs no round outside it (`isTimeInBalancingWindow`; the time is serve's UTC wall clock);
// - sh.stopBalancer() (balancerStop) answers once the round in flight has ended
//   (`db/s/config/configsvr_control_balancer_command.cpp`, joinCurrentRound), so the
//   sh.moveChunk() typed next is not refused as a conflict;
// - $shardedDataDistribution no longer lists a removed shard (it asks the shards config.shards
//   lists: `db/pipeline/document_source_sharded_data_distribution.cpp`).
load(__dirname + "/lib.js");
begin("serve_admin_rules");

const admin = db.getSiblingDB("admin");
const config = db.getSiblingDB("config");

// configureQueryAnalyzer.
expectError("configureQueryAnalyzer on a missing collection",
  () => db.getSiblingDB("nowhere").nothing.configureQueryAnalyzer({ mode: "full", samplesPerSecond: 1 }),
  { codeName: "NamespaceNotFound", code: 26, message: "The namespace does not exist" });

// moveChunk to a shard that does not exist, and the order of the checks.
step("enableSharding app", () => sh.enableSharding("app"));
eq("shardCollection app.c {x: 1}",
   (step("shardCollection", () => sh.shardCollection("app.c", { x: 1 })) || {}).ok, 1);
expectError("moveChunk to shardX", () => sh.moveChunk("app.c", { x: 1 }, "shardX"),
  { codeName: "ShardNotFound", code: 70,
    message: "Could not move chunk in app.c to shardX because that shard does not exist" });
expectError("moveChunk of an unsharded namespace to shardX: the namespace first",
  () => sh.moveChunk("app.unsharded", { x: 1 }, "shardX"), { codeName: "NamespaceNotSharded" });

// activeWindow: stored, read back, refused when malformed, honoured.
function hm(minutes) {
  const m = ((minutes % 1440) + 1440) % 1440;
  return String(Math.floor(m / 60)).padStart(2, "0") + ":" + String(m % 60).padStart(2, "0");
}
function nowMinute() {
  const d = new Date();
  return d.getUTCHours() * 60 + d.getUTCMinutes();
}
function rounds() {
  return Number((admin.runCommand({ balancerStatus: 1 }) || {}).numBalancerRounds);
}
function windowUpdate(w) {
  return config.settings.updateOne({ _id: "balancer" }, { $set: { activeWindow: w } }, { upsert: true });
}
const away = { start: hm(nowMinute() + 120), stop: hm(nowMinute() + 180) };
eq("set an activeWindow that excludes now",
   (step("updateOne activeWindow", () => windowUpdate(away)) || {}).acknowledged, true);
eq("config.settings keeps the window as written",
   (config.settings.findOne({ _id: "balancer" }) || {}).activeWindow, away);
const before = rounds();
sleep(12000);
eq("outside the window the balancer runs no round (12 s, rounds every 10 s)", rounds(), before);
const here = { start: hm(nowMinute() - 60), stop: hm(nowMinute() + 60) };
step("updateOne activeWindow around now", () => windowUpdate(here));
let after = rounds();
const roundDeadline = Date.now() + 25000;
while (after === before && Date.now() < roundDeadline) {
  sleep(500);
  after = rounds();
}
check("inside the window rounds run again", after > before, "rounds " + before + " -> " + after);
expectError("a window with one bound", () => windowUpdate({ start: "23:00" }),
  { code: 2, messageRe: /^must specify both start and stop of balancing window: / });
expectError("a window that is not hh:mm", () => windowUpdate({ start: "23:00", stop: "6" }),
  { code: 2, message: 'activeWindow format is  { start: "hh:mm" , stop: "hh:mm" }' });
eq("unset the window",
   (step("unset", () => config.settings.updateOne({ _id: "balancer" }, { $unset: { activeWindow: 1 } })) || {}).acknowledged, true);
eq("no window read back", (config.settings.findOne({ _id: "balancer" }) || {}).activeWindow, undefined);

// balancerStop waits for the round in flight: an imbalance of 6 MB with 1 MB chunks.
step("chunksize 1", () => config.settings.updateOne({ _id: "chunksize" }, { $set: { value: 1 } }, { upsert: true }));
eq("shardCollection app.big {x: 1}",
   (step("shardCollection big", () => sh.shardCollection("app.big", { x: 1 })) || {}).ok, 1);
const pad = "p".repeat(1000);
const docs = [];
for (let i = 0; i < 6000; i++) docs.push({ x: i, pad: pad });
step("insert 6000 documents of 1 KB", () => db.getSiblingDB("app").big.insertMany(docs));
step("startBalancer", () => sh.startBalancer());
let inRound = false;
const busyDeadline = Date.now() + 60000;
while (!inRound && Date.now() < busyDeadline) {
  inRound = !!(admin.runCommand({ balancerStatus: 1 }) || {}).inBalancerRound;
  if (!inRound) sleep(20);
}
check("a balancer round is in flight", inRound);
eq("sh.stopBalancer()", (step("stopBalancer", () => sh.stopBalancer()) || {}).ok, 1);
eq("after sh.stopBalancer() no round is in flight",
   (admin.runCommand({ balancerStatus: 1 }) || {}).inBalancerRound, false);
// The first chunk (about the chunk size, what the round's migration cut) to another shard.
const first = chunksOf("app.big")[0];
const dest = first && first.shard === "shard0001" ? "shard0002" : "shard0001";
eq("sh.moveChunk right after sh.stopBalancer()",
   (step("moveChunk after stop", () => sh.moveChunk("app.big", { x: 0 }, dest)) || {}).ok, 1);

// $shardedDataDistribution and a removed shard.
eq("addShard extra", (step("addShard", () => admin.runCommand({ addShard: "extra/extra.example:27018", name: "extra" })) || {}).ok, 1);
eq("moveChunk app.c to extra", (step("to extra", () => sh.moveChunk("app.c", { x: 1 }, "extra")) || {}).ok, 1);
step("insert into app.c", () => db.getSiblingDB("app").c.insertMany([{ x: 1 }, { x: 2 }, { x: 3 }]));
const home = "shard0000";
eq("moveChunk app.c back", (step("back", () => sh.moveChunk("app.c", { x: 1 }, home)) || {}).ok, 1);
function distribution() {
  return admin.aggregate([{ $shardedDataDistribution: {} }, { $match: { ns: "app.c" } }]).toArray();
}
const orphaned = (step("$shardedDataDistribution", distribution) || [{ shards: [] }])[0].shards
  .filter(s => s.shardName === "extra");
eq("extra holds the moved range's orphans", orphaned.map(s => Number(s.numOrphanedDocs)), [3]);
eq("removeShard extra starts", (step("removeShard", () => admin.runCommand({ removeShard: "extra" })) || {}).state, "started");
let state = "started";
const drainDeadline = Date.now() + 60000;
while (state !== "completed" && Date.now() < drainDeadline) {
  sleep(500);
  state = (admin.runCommand({ removeShard: "extra" }) || {}).state;
}
eq("removeShard extra completes", state, "completed");
const listed = (step("$shardedDataDistribution after", distribution) || [{ shards: [] }])[0].shards.map(s => s.shardName);
check("$shardedDataDistribution no longer lists extra", !listed.includes("extra"), show(listed));

finish();
