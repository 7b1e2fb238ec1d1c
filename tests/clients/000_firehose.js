// Seed 000 ("Choosing a MongoDB Shard Key: Ascending, Hashed, and Zoned Distributions", after
// MongoDB: The Definitive Guide, 3rd ed., ch. "Choosing a Shard Key"): an ascending key sends
// every insert to the max chunk, and the firehose strategy pins that max chunk to one shard with
// a zone "from now through infinity", walked forward by a daily job. Recipes quoted from that
// seed. Served with --server-version 7.0.
load(__dirname + "/lib.js");
begin("000_firehose");

const test = db.getSiblingDB("test");
step("enableSharding test", () => sh.enableSharding("test"));

// "every subsequent insert will be into the max chunk": shard on _id (ObjectIds), cut at now, put
// the max chunk on shard0001, insert.
eq("shardCollection test.ascending {_id: 1}",
   (step("sc", () => sh.shardCollection("test.ascending", { _id: 1 })) || {}).ok, 1);
const cut = ObjectId();
eq("splitAt now", (step("splitAt", () => sh.splitAt("test.ascending", { _id: cut })) || {}).ok, 1);
const maxChunk = chunksOf("test.ascending").find(c => isMaxKey(c.max._id));
if (maxChunk && maxChunk.shard !== "shard0001") {
  eq("moveChunk the max chunk to shard0001",
     (step("moveChunk", () => sh.moveChunk("test.ascending", { _id: cut }, "shard0001")) || {}).ok, 1);
}
for (let i = 0; i < 10; i++) {
  const batch = [];
  for (let j = 0; j < 100; j++) batch.push({ n: i * 100 + j, at: new Date() });
  step("insert batch", () => test.ascending.insertMany(batch));
}
const asc = step("explain find({})", () => explainFind(test.ascending, {}));
if (asc) {
  eq("all 1000 ascending inserts are on the max chunk's shard",
     asc.shards.filter(s => s.nReturned > 0).map(s => [s.shard, s.nReturned]), [["shard0001", 1000]]);
}

// The firehose:
// > sh.addShardToZone("<shard-name>", "10x")
// > sh.updateZoneKeyRange("<dbName.collName>", {"_id" : ObjectId()}, {"_id" : MaxKey}, "10x")
// (defined before sharding, as the seed advises for zones.)
eq("addShardToZone shard0002 10x",
   (step("zone", () => sh.addShardToZone("shard0002", "10x")) || {}).ok, 1);
const pin = ObjectId();
eq("updateZoneKeyRange {_id: ObjectId()}..{_id: MaxKey} 10x",
   (step("range", () => sh.updateZoneKeyRange("test.firehose", { "_id": pin }, { "_id": MaxKey }, "10x")) ||
    {}).ok, 1);
eq("shardCollection test.firehose {_id: 1}",
   (step("sc2", () => sh.shardCollection("test.firehose", { _id: 1 })) || {}).ok, 1);
const top = chunksOf("test.firehose").find(c => isMaxKey(c.max._id));
eq("the chunk from the pin to MaxKey is on the 10x shard", top && [top.min._id, top.shard],
   [pin, "shard0002"]);

// "Now all inserts will be routed to this last chunk, which will always live on the shard zoned 10x."
let inserted = 0;
for (let i = 0; i < 25; i++) {
  const batch = [];
  for (let j = 0; j < 100; j++) batch.push({ n: i * 100 + j, payload: "x".repeat(100) });
  const r = step("firehose insertMany", () => test.firehose.insertMany(batch));
  if (r) inserted += Object.keys(r.insertedIds).length;
}
for (let i = 0; i < 500; i++) {
  const r = step("firehose insertOne", () => test.firehose.insertOne({ n: 2500 + i }));
  if (r) inserted += 1;
}
eq("3000 inserts acknowledged", inserted, 3000);
const fh = step("explain find({})", () => explainFind(test.firehose, {}));
if (fh) {
  eq("every insert is on shard0002",
     fh.shards.filter(s => s.nReturned > 0).map(s => [s.shard, s.nReturned]), [["shard0002", 3000]]);
}
eq("count", step("count", () => test.firehose.countDocuments({})), 3000);

// The daily job: "fetch the zone whose max is MaxKey, set its min to a fresh ObjectId(), save it".
const config = db.getSiblingDB("config");
const zone = config.tags.findOne({ ns: "test.firehose", max: { _id: MaxKey } });
eq("the firehose zone range in config.tags", zone && [zone.min._id, zone.tag], [pin, "10x"]);
const fresh = ObjectId();
if (zone) {
  eq("removeRangeFromZone the old pin",
     (step("remove", () => sh.removeRangeFromZone("test.firehose", zone.min, zone.max)) || {}).ok, 1);
}
eq("updateZoneKeyRange from a fresh ObjectId()",
   (step("walk", () => sh.updateZoneKeyRange("test.firehose", { _id: fresh }, { _id: MaxKey }, "10x")) ||
    {}).ok, 1);
eq("config.tags now pins from the fresh ObjectId",
   config.tags.find({ ns: "test.firehose" }).toArray().map(t => [t.min._id, t.max, t.tag]),
   [[fresh, { _id: MaxKey() }, "10x"]]);
for (let i = 0; i < 5; i++) {
  const batch = [];
  for (let j = 0; j < 100; j++) batch.push({ n: 3000 + i * 100 + j });
  step("insert after the walk", () => test.firehose.insertMany(batch));
}
const after = step("explain the new inserts", () => explainFind(test.firehose, { _id: { $gte: fresh } }));
if (after) {
  eq("new inserts still go to the 10x shard", [after.stage, after.nReturned,
     after.shards.filter(s => s.nReturned > 0).map(s => s.shard)], ["SINGLE_SHARD", 500, ["shard0002"]]);
}

finish();
