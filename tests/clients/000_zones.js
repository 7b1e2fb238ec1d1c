// Seed 000 ("Choosing a MongoDB Shard Key: Ascending, Hashed, and Zoned Distributions", after
// MongoDB: The Definitive Guide, 3rd ed., ch. "Choosing a Shard Key"): location-based keys and
// zones, defined before sharding ("In MongoDB 4.0.3+, you can define the zones and the zone
// ranges prior to sharding a collection, which populates chunks for both the zone ranges ... as
// well as performing an initial chunk distribution"), and whole collections zoned MinKey..MaxKey.
// The zone names, shards and IP ranges are quoted from that seed (the "low" zone gets shard0001
// and shard0002 here: this cluster has three shards, not six).
// Served with --server-version 7.0.
load(__dirname + "/lib.js");
begin("000_zones");

step("enableSharding test", () => sh.enableSharding("test"));

// > sh.addShardToZone("shard0000", "USPS")
// > sh.addShardToZone("shard0000", "Apple")
// > sh.addShardToZone("shard0002", "Apple")
// > sh.updateZoneKeyRange("test.ips", {"ip" : "056.000.000.000"}, {"ip" : "057.000.000.000"}, "USPS")
// > sh.updateZoneKeyRange("test.ips", {"ip" : "017.000.000.000"}, {"ip" : "018.000.000.000"}, "Apple")
eq("addShardToZone shard0000 USPS", (step("z1", () => sh.addShardToZone("shard0000", "USPS")) || {}).ok, 1);
eq("addShardToZone shard0000 Apple", (step("z2", () => sh.addShardToZone("shard0000", "Apple")) || {}).ok, 1);
eq("addShardToZone shard0002 Apple", (step("z3", () => sh.addShardToZone("shard0002", "Apple")) || {}).ok, 1);
const r1 = step("updateZoneKeyRange USPS", () => sh.updateZoneKeyRange("test.ips",
  { "ip": "056.000.000.000" }, { "ip": "057.000.000.000" }, "USPS"));
eq("updateZoneKeyRange USPS ok", r1 && r1.ok, 1);
const r2 = step("updateZoneKeyRange Apple", () => sh.updateZoneKeyRange("test.ips",
  { "ip": "017.000.000.000" }, { "ip": "018.000.000.000" }, "Apple"));
eq("updateZoneKeyRange Apple ok", r2 && r2.ok, 1);

const config = db.getSiblingDB("config");
const shard0000 = config.shards.findOne({ _id: "shard0000" });
check("shard0000 has the zones USPS and Apple",
      shard0000 && show(shard0000.tags.slice().sort()) === show(["Apple", "USPS"]),
      show(shard0000 && shard0000.tags));
const shard0002 = config.shards.findOne({ _id: "shard0002" });
eq("shard0002 has the zone Apple", shard0002 && shard0002.tags, ["Apple"]);
eq("config.tags: the two ranges, half-open, by zone",
   config.tags.find({ ns: "test.ips" }).sort({ min: 1 }).toArray().map(t => [t.min, t.max, t.tag]),
   [[{ ip: "017.000.000.000" }, { ip: "018.000.000.000" }, "Apple"],
    [{ ip: "056.000.000.000" }, { ip: "057.000.000.000" }, "USPS"]]);

const sharded = step("shardCollection test.ips {ip: 1}", () => sh.shardCollection("test.ips", { ip: 1 }));
eq("shardCollection ok", sharded && sharded.ok, 1);

// The initial chunks follow the zone ranges, and the zoned chunks start on their zones' shards.
const chunks = chunksOf("test.ips");
const bounds = chunks.map(c => c.min.ip).filter(v => typeof v === "string");
check("chunks are cut at the four zone bounds",
      ["017.000.000.000", "018.000.000.000", "056.000.000.000", "057.000.000.000"]
        .every(b => bounds.includes(b)), show(chunks.map(c => [c.min, c.max, c.shard])));
const usps = chunks.find(c => c.min.ip === "056.000.000.000");
eq("the USPS chunk is on shard0000", usps && usps.shard, "shard0000");
const apple = chunks.find(c => c.min.ip === "017.000.000.000");
check("the Apple chunk is on shard0000 or shard0002",
      apple && ["shard0000", "shard0002"].includes(apple.shard), show(apple));

// The IPs are zero-padded strings, so lexicographic order is numeric order.
function ip(a, b, c, d) {
  return [a, b, c, d].map(x => String(x).padStart(3, "0")).join(".");
}
const ips = db.getSiblingDB("test").ips;
const docs = [];
for (let i = 0; i < 400; i++) docs.push({ ip: ip(56, i % 256, Math.floor(i / 256), 1), who: "USPS" });
for (let i = 0; i < 400; i++) docs.push({ ip: ip(17, i % 256, Math.floor(i / 256), 2), who: "Apple" });
for (let i = 0; i < 400; i++) docs.push({ ip: ip(100 + (i % 150), i % 256, 0, 3), who: "other" });
// Unpadded, "56.1.2.3" sorts after "057.000.000.000": it is outside the USPS range.
docs.push({ ip: "56.1.2.3", who: "unpadded" });
const ins = step("insert 1201 addresses", () => ips.insertMany(docs));
eq("inserted", ins && Object.keys(ins.insertedIds).length, 1201);

// A mongos targets a range query with its upper bound inclusive (`getShardIdsForRange` calls
// `overlappingRanges(min, max, isMaxInclusive=true)`, src/mongo/s/chunk_manager.cpp): `$lt` a
// zone's upper bound also reaches the chunk that starts there, which holds none of the range.
const startingAt = b => (chunks.find(c => c.min.ip === b) || {}).shard;
const uniq = xs => [...new Set(xs)].sort();
const uspsRange = { ip: { $gte: "056.000.000.000", $lt: "057.000.000.000" } };
const ue = step("explain the USPS range", () => explainFind(ips, uspsRange));
if (ue) {
  const want = uniq(["shard0000", startingAt("057.000.000.000")]);
  eq("USPS range: the zone's shard and the next chunk's", uniq(ue.shards.map(s => s.shard)), want);
  eq("USPS range: " + (want.length === 1 ? "SINGLE_SHARD" : "SHARD_MERGE"), ue.stage,
     want.length === 1 ? "SINGLE_SHARD" : "SHARD_MERGE");
  eq("USPS range: every document from shard0000",
     ue.shards.filter(s => s.nReturned > 0).map(s => s.shard), ["shard0000"]);
  eq("USPS range: the 400 padded USPS addresses (not the unpadded one)", ue.nReturned, 400);
}
const ae = step("explain the Apple range",
                () => explainFind(ips, { ip: { $gte: "017.000.000.000", $lt: "018.000.000.000" } }));
if (ae) {
  const allowed = ["shard0000", "shard0002", startingAt("018.000.000.000")];
  check("Apple range: its zone's shards and the next chunk's only",
        ae.shards.length > 0 && ae.shards.every(s => allowed.includes(s.shard)),
        show(ae.shards));
  check("Apple range: every document from shard0000 or shard0002",
        ae.shards.filter(s => s.nReturned > 0).every(s => ["shard0000", "shard0002"].includes(s.shard)),
        show(ae.shards));
  eq("Apple range: the 400 Apple addresses", ae.nReturned, 400);
}
eq("every address is kept", step("count", () => ips.countDocuments({})), 1201);

// Zoning whole collections: "for negative infinity to infinity for this collection, store it on
// shards tagged high."
// > sh.addShardToZone("shard0000", "high")
// > sh.addShardToZone("shard0004", "low")    (here shard0001)
// > sh.addShardToZone("shard0005", "low")    (here shard0002)
// > sh.updateZoneKeyRange("super.important", {"<shardKey>" : MinKey}, {"<shardKey>" : MaxKey}, "high")
// > sh.updateZoneKeyRange("some.logs", {"<shardKey>" : MinKey}, {"<shardKey>" : MaxKey}, "low")
step("addShardToZone shard0000 high", () => sh.addShardToZone("shard0000", "high"));
step("addShardToZone shard0001 low", () => sh.addShardToZone("shard0001", "low"));
step("addShardToZone shard0002 low", () => sh.addShardToZone("shard0002", "low"));
step("enableSharding super", () => sh.enableSharding("super"));
step("enableSharding some", () => sh.enableSharding("some"));
eq("updateZoneKeyRange super.important MinKey..MaxKey high",
   (step("zr high", () => sh.updateZoneKeyRange("super.important", { key: MinKey }, { key: MaxKey },
                                                "high")) || {}).ok, 1);
eq("updateZoneKeyRange some.logs MinKey..MaxKey low",
   (step("zr low", () => sh.updateZoneKeyRange("some.logs", { key: MinKey }, { key: MaxKey }, "low")) ||
    {}).ok, 1);
eq("shardCollection super.important",
   (step("sc high", () => sh.shardCollection("super.important", { key: 1 })) || {}).ok, 1);
eq("shardCollection some.logs",
   (step("sc low", () => sh.shardCollection("some.logs", { key: 1 })) || {}).ok, 1);
check("super.important's chunks are all on shard0000",
      chunksOf("super.important").every(c => c.shard === "shard0000") &&
        chunksOf("super.important").length > 0,
      show(chunksOf("super.important").map(c => [c.min, c.max, c.shard])));
check("some.logs' chunks are all on shard0001 or shard0002",
      chunksOf("some.logs").every(c => ["shard0001", "shard0002"].includes(c.shard)) &&
        chunksOf("some.logs").length > 0,
      show(chunksOf("some.logs").map(c => [c.min, c.max, c.shard])));
const important = db.getSiblingDB("super").important;
const logs = db.getSiblingDB("some").logs;
const many = [];
for (let i = 0; i < 500; i++) many.push({ key: i * 7919 % 1000, n: i });
step("insert into super.important", () => important.insertMany(many.map(d => Object.assign({}, d))));
step("insert into some.logs", () => logs.insertMany(many.map(d => Object.assign({}, d))));
eq("super.important: every document on shard0000",
   step("where important", () => shardsHolding(important, {})), ["shard0000"]);
const logShards = step("where logs", () => shardsHolding(logs, {}));
check("some.logs: documents only on shard0001 or shard0002",
      logShards && logShards.length > 0 && logShards.every(s => s === "shard0001" || s === "shard0002"),
      show(logShards));

finish();
