// Seed 000 ("Choosing a MongoDB Shard Key: Ascending, Hashed, and Zoned Distributions", after
// MongoDB: The Definitive Guide, 3rd ed., ch. "Choosing a Shard Key"): the hashed shard key.
// Expected answers and the usernames are quoted from that seed.
// Served with --server-version 7.0 (before 7.2 an empty collection is pre-split into 2 chunks per
// shard, as the seed's sh.status() shows).
load(__dirname + "/lib.js");
begin("000_hashed_presplit");

const app = db.getSiblingDB("app");
step("enableSharding app", () => sh.enableSharding("app"));

// > db.users.createIndex({"username" : "hashed"})
// > sh.shardCollection("app.users", {"username" : "hashed"})
// { "collectionsharded" : "app.users", "ok" : 1 }
eq("createIndex({username: 'hashed'})",
   step("createIndex", () => app.users.createIndex({ "username": "hashed" })), "username_hashed");
const sharded = step("shardCollection", () => sh.shardCollection("app.users", { "username": "hashed" }));
eq("shardCollection answers collectionsharded", sharded && sharded.collectionsharded, "app.users");
eq("shardCollection answers ok", sharded && sharded.ok, 1);

// With three shards, sh.status() shows two chunks each, cut at multiples of 2^64 / 6.
const st = step("sh.status()", () => sh.status());
const appStatus = st && st.value.databases.find(d => d.database._id === "app");
const usersStatus = appStatus && appStatus.collections["app.users"];
eq("sh.status() shard key", usersStatus && usersStatus.shardKey, { username: "hashed" });
eq("sh.status() chunks per shard", usersStatus && usersStatus.chunkMetadata,
   [{ shard: "shard0000", nChunks: 2 }, { shard: "shard0001", nChunks: 2 },
    { shard: "shard0002", nChunks: 2 }]);

const want = [
  ["MinKey", "-6148914691236517204", "shard0000"],
  ["-6148914691236517204", "-3074457345618258602", "shard0000"],
  ["-3074457345618258602", "0", "shard0001"],
  ["0", "3074457345618258602", "shard0001"],
  ["3074457345618258602", "6148914691236517204", "shard0002"],
  ["6148914691236517204", "MaxKey", "shard0002"],
];
const chunks = chunksOf("app.users");
eq("config.chunks: the six pre-split chunks and their shards",
   chunks.map(c => [longStr(c.min.username), longStr(c.max.username), c.shard]), want);
check("boundaries are NumberLong",
      chunks.slice(1).every(c => c.min.username._bsontype === "Long"),
      show(chunks.map(c => c.min.username)));

// Writes are spread from the start: usernames in alphabetical order land on every shard.
const names = ["aliceroberts", "bjornsvensson", "carlos_mendes", "dpatel"];
for (let i = 0; i < 2996; i++) names.push("user" + String(i).padStart(5, "0"));
const inserted = step("insertMany 3000 users",
                      () => app.users.insertMany(names.map((u, i) => ({ username: u, n: i }))));
eq("insertMany acknowledged", inserted && Object.keys(inserted.insertedIds).length, 3000);
const all = step("explain find({})", () => explainFind(app.users, {}));
if (all) {
  eq("find({}) asks every shard", all.shards.map(s => s.shard).sort(),
     ["shard0000", "shard0001", "shard0002"]);
  eq("find({}) returns every user", all.nReturned, 3000);
  check("each shard holds between 25% and 42% of the users",
        all.shards.every(s => s.nReturned >= 750 && s.nReturned <= 1260), show(all.shards));
}

// Equality stays targeted; a range over usernames is a scatter-gather.
const point = step("explain find({username: 'dpatel'})",
                   () => explainFind(app.users, { username: "dpatel" }));
if (point) {
  eq("find({username: 'dpatel'}) stage", point.stage, "SINGLE_SHARD");
  eq("find({username: 'dpatel'}) asks one shard", point.shards.length, 1);
  eq("find({username: 'dpatel'}) returns it", point.nReturned, 1);
}
const range = step("explain of a username range",
                   () => explainFind(app.users, { username: { $gte: "a", $lt: "c" } }));
if (range) {
  eq("find({username: {$gte: 'a', $lt: 'c'}}) stage", range.stage, "SHARD_MERGE");
  eq("find({username: {$gte: 'a', $lt: 'c'}}) asks every shard",
     range.shards.map(s => s.shard).sort(), ["shard0000", "shard0001", "shard0002"]);
  eq("find({username: {$gte: 'a', $lt: 'c'}}) returns aliceroberts and bjornsvensson",
     range.nReturned, 2);
}

// "ask the server with convertShardKeyToHashed()": the chunk holding dpatel's hash is on the
// shard the equality query went to.
const h = step("convertShardKeyToHashed('dpatel')", () => convertShardKeyToHashed("dpatel"));
if (h !== undefined && point) {
  const hv = BigInt(h.toString());
  const owner = chunks.find(c =>
    (isMinKey(c.min.username) || BigInt(c.min.username.toString()) <= hv) &&
    (isMaxKey(c.max.username) || hv < BigInt(c.max.username.toString())));
  eq("dpatel's hash is in a chunk of the shard find() asked", owner && owner.shard,
     point.shards.length ? point.shards[0].shard : null);
}

// "floating-point values will be rounded to whole numbers before hashing, so 1 and 1.999999 will
// both be hashed to the same value."
const h1 = step("convertShardKeyToHashed(1)", () => convertShardKeyToHashed(1));
const h2 = step("convertShardKeyToHashed(1.999999)", () => convertShardKeyToHashed(1.999999));
if (h1 !== undefined && h2 !== undefined) {
  eq("1 and 1.999999 hash to the same value", longStr(h2), longStr(h1));
}

// "you cannot use the unique option" (the message is the server's since 4.4)
expectError("a hashed shard key cannot be unique",
            () => sh.shardCollection("app.uniqueusers", { username: "hashed" }, true),
            { codeName: "InvalidOptions",
              message: "Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness " +
                "on the hashed field by declaring an additional (non-hashed) unique index on the field." });

// "As with other shard keys, you cannot use array fields."
expectError("a shard key value cannot be an array",
            () => app.users.insertOne({ username: ["eve", "frank"] }), {});

// Book vs. today: since 4.4 a compound shard key may hold one hashed field.
const regional = step("shardCollection {region: 1, userId: 'hashed'}",
                      () => sh.shardCollection("app.regional", { region: 1, userId: "hashed" }));
eq("compound hashed shard key accepted", regional && regional.ok, 1);
const regionalColl = db.getSiblingDB("config").collections.findOne({ _id: "app.regional" });
eq("compound hashed key in config.collections", regionalColl && regionalColl.key,
   { region: 1, userId: "hashed" });

finish();
