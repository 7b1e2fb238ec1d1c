// Seed 000 ("Choosing a MongoDB Shard Key: Ascending, Hashed, and Zoned Distributions", after
// MongoDB: The Definitive Guide, 3rd ed., ch. "Choosing a Shard Key"): manual sharding — stop the
// balancer, wait for it, look at the chunks, then place chunks with moveChunk, several in a row.
// The recipe and the NumberLong bound (2^64 / 10: the 64-bit space cut into ten ranges) are
// quoted from that seed; "test-rs1" is shard0001 here. Served with --server-version 7.0.
load(__dirname + "/lib.js");
begin("000_manual_movechunk");

// > sh.stopBalancer()
// > while(sh.isBalancerRunning()) { print("waiting..."); sleep(1000); }
// (mongosh 2's sh.isBalancerRunning() answers the balancerStatus document: test inBalancerRound.)
eq("sh.stopBalancer()", (step("stopBalancer", () => sh.stopBalancer()) || {}).ok, 1);
let waits = 0;
while ((step("isBalancerRunning", () => sh.isBalancerRunning()) || {}).inBalancerRound && waits < 60) {
  print("waiting...");
  sleep(1000);
  waits++;
}
check("the balancer round ended", waits < 60, "still in a round after 60 s");
eq("sh.getBalancerState() is false", step("getBalancerState", () => sh.getBalancerState()), false);
eq("balancerStatus mode off", (step("status", () => sh.isBalancerRunning()) || {}).mode, "off");

step("enableSharding test", () => sh.enableSharding("test"));
const ns = "test.manual.stuff";
eq("shardCollection {user_id: 1}", (step("sc", () => sh.shardCollection(ns, { user_id: 1 })) || {}).ok, 1);
const interval = 1844674407370955160n;
const points = [];
for (let k = -4n; k <= 4n; k++) points.push(k * interval);
for (const p of points) {
  eq("splitAt " + p, (step("splitAt " + p, () => sh.splitAt(ns, { user_id: NumberLong(p.toString()) })) ||
                      {}).ok, 1);
}
const stuff = db.getSiblingDB("test").manual.stuff;
const docs = [];
const span = 18446744073709551615n / 2000n;
for (let i = 0n; i < 2000n; i++) {
  docs.push({ user_id: NumberLong((-9223372036854775807n + i * span).toString()), i: Number(i) });
}
eq("insert 2000", Object.keys((step("insertMany", () => stuff.insertMany(docs)) || { insertedIds: {} })
                                .insertedIds).length, 2000);

// > db.chunks.find()                    // in the config database
const before = chunksOf(ns);
eq("ten chunks", before.length, 10);
eq("chunk bounds at multiples of 2^64/10", before.slice(1).map(c => longStr(c.min.user_id)),
   points.map(p => p.toString()));

// > sh.moveChunk("test.manual.stuff", {user_id: NumberLong("-1844674407370955160")}, "test-rs1")
const target = before.find(c => longStr(c.min.user_id) === "-1844674407370955160");
let moves = 0;
if (target && target.shard !== "shard0001") {
  const r = step("moveChunk {user_id: NumberLong('-1844674407370955160')} to shard0001",
                 () => sh.moveChunk(ns, { user_id: NumberLong("-1844674407370955160") }, "shard0001"));
  eq("the book's moveChunk ok", r && r.ok, 1);
  moves++;
}
// Then place every chunk by hand: chunk i on shard000(i % 3), one moveChunk after another.
const shards = ["shard0000", "shard0001", "shard0002"];
const want = [];
chunksOf(ns).forEach((c, i) => {
  const dest = shards[i % 3];
  want.push([longStr(c.min.user_id), dest]);
  if (c.shard === dest) return;
  const find = isMinKey(c.min.user_id) ? { user_id: NumberLong("-9223372036854775808") } : c.min;
  const r = step("moveChunk " + show(find) + " to " + dest, () => sh.moveChunk(ns, find, dest));
  check("moveChunk " + longStr(c.min.user_id) + " -> " + dest + " ok", r && r.ok === 1, show(r));
  moves++;
});
check("at least six moves in a row", moves >= 6, "only " + moves);
eq("config.chunks shows every chunk where it was put",
   chunksOf(ns).map(c => [longStr(c.min.user_id), c.shard]), want);

// The documents followed their chunks: 200 per chunk, so shard0000 has 4 chunks' worth.
const e = step("explain find({})", () => explainFind(stuff, {}));
if (e) {
  eq("documents per shard", e.shards.map(s => [s.shard, s.nReturned]).sort(),
     [["shard0000", 800], ["shard0001", 600], ["shard0002", 600]]);
}
// With the balancer off nothing reshuffles the placement.
sleep(3000);
eq("placement unchanged 3 s later", chunksOf(ns).map(c => [longStr(c.min.user_id), c.shard]), want);

finish();
