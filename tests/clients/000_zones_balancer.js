// Seed 000 ("Choosing a MongoDB Shard Key: Ascending, Hashed, and Zoned Distributions", after
// MongoDB: The Definitive Guide, 3rd ed., ch. "Choosing a Shard Key"): the zone recipe typed on
// a collection that is already sharded and holds data. "When the balancer moves chunks, it will
// attempt to move chunks with those ranges to those shards. Note that this process is not
// immediate." So the script waits (at most 150 s) for the balancer to bring each range to its
// zone's shards. Zone names, shards and ranges are quoted from that seed.
// Served with --server-version 7.0, balancer on.
load(__dirname + "/lib.js");
begin("000_zones_balancer");

// The database's primary is shard0001, so the collection starts there without a migration: a
// chunk moved off shard0000 could not come back for orphanCleanupDelaySecs (900 s) — the range
// deleter has not run and the recipient's wait (receiveChunkWaitForRangeDeleterTimeoutMS, 10 s)
// ends the migration (migration_destination_manager.cpp).
step("enableSharding test", () => sh.enableSharding("test", "shard0001"));
eq("shardCollection test.ips {ip: 1}",
   (step("shardCollection", () => sh.shardCollection("test.ips", { ip: 1 })) || {}).ok, 1);

function ip(a, b, c, d) {
  return [a, b, c, d].map(x => String(x).padStart(3, "0")).join(".");
}
const ips = db.getSiblingDB("test").ips;
const docs = [];
for (let i = 0; i < 300; i++) docs.push({ ip: ip(56, i % 256, Math.floor(i / 256), 1), who: "USPS" });
for (let i = 0; i < 300; i++) docs.push({ ip: ip(17, i % 256, Math.floor(i / 256), 2), who: "Apple" });
for (let i = 0; i < 300; i++) docs.push({ ip: ip(100 + (i % 150), i % 256, 0, 3), who: "other" });
eq("insert 900 addresses",
   Object.keys((step("insertMany", () => ips.insertMany(docs)) || { insertedIds: {} }).insertedIds).length, 900);

// Start with every document away from the zones' shards: the collection's one chunk on shard0001.
const first = chunksOf("test.ips");
eq("one chunk after shardCollection", first.length, 1);
if (first.length === 1 && first[0].shard !== "shard0001") {
  eq("moveChunk the only chunk to shard0001",
     (step("moveChunk", () => sh.moveChunk("test.ips", { ip: "000.000.000.000" }, "shard0001")) || {}).ok, 1);
}
eq("all 900 on shard0001 before the zones", step("where", () => shardsHolding(ips, {})), ["shard0001"]);

// > sh.addShardToZone("shard0000", "USPS")
// > sh.addShardToZone("shard0000", "Apple")
// > sh.addShardToZone("shard0002", "Apple")
// > sh.updateZoneKeyRange("test.ips", {"ip" : "056.000.000.000"}, {"ip" : "057.000.000.000"}, "USPS")
// > sh.updateZoneKeyRange("test.ips", {"ip" : "017.000.000.000"}, {"ip" : "018.000.000.000"}, "Apple")
step("z1", () => sh.addShardToZone("shard0000", "USPS"));
step("z2", () => sh.addShardToZone("shard0000", "Apple"));
step("z3", () => sh.addShardToZone("shard0002", "Apple"));
eq("updateZoneKeyRange USPS", (step("r1", () => sh.updateZoneKeyRange("test.ips",
  { "ip": "056.000.000.000" }, { "ip": "057.000.000.000" }, "USPS")) || {}).ok, 1);
eq("updateZoneKeyRange Apple", (step("r2", () => sh.updateZoneKeyRange("test.ips",
  { "ip": "017.000.000.000" }, { "ip": "018.000.000.000" }, "Apple")) || {}).ok, 1);
eq("the balancer is on", step("getBalancerState", () => sh.getBalancerState()), true);

const uspsRange = { ip: { $gte: "056.000.000.000", $lt: "057.000.000.000" } };
const appleRange = { ip: { $gte: "017.000.000.000", $lt: "018.000.000.000" } };
function placed() {
  const u = shardsHolding(ips, uspsRange);
  const a = shardsHolding(ips, appleRange);
  return { usps: u, apple: a,
           done: show(u) === show(["shard0000"]) && a.length > 0 &&
                 a.every(s => s === "shard0000" || s === "shard0002") };
}
const deadline = Date.now() + 150000;
let now = step("where now", placed);
while (now && !now.done && Date.now() < deadline) {
  sleep(1000);
  now = step("where now", placed);
}
check("the balancer brings the USPS range to shard0000 and the Apple range to shard0000/shard0002",
      now && now.done, show(now) + " after 150 s; chunks " +
        show(chunksOf("test.ips").map(c => [c.min.ip, c.max.ip, c.shard])));
const chunks = chunksOf("test.ips");
const bounds = chunks.map(c => c.min.ip).filter(v => typeof v === "string");
check("the balancer split the chunk at the four zone bounds",
      ["017.000.000.000", "018.000.000.000", "056.000.000.000", "057.000.000.000"]
        .every(b => bounds.includes(b)), show(chunks.map(c => [c.min.ip, c.max.ip, c.shard])));
eq("USPS range still holds its 300 addresses",
   (step("explain usps", () => explainFind(ips, uspsRange)) || {}).nReturned, 300);
eq("no address lost", step("count", () => ips.countDocuments({})), 900);

finish();
