// Seed 003 (lesson "04 · Choosing & Changing a Shard Key", MongoDB 9.0.2, three shards): low
// cardinality — a chunk holding a single value of the shard key cannot be split. The eight cities
// and the chunk bounds (MinKey, Chennai, Delhi, Hyderabad, Jaipur, Kochi, Pune, MaxKey) are the
// seed's lab.bycity; 250 orders per city here instead of about 21,500. Expected answers quoted
// from that seed. Served with --server-version 9.0.
load(__dirname + "/lib.js");
begin("003_low_cardinality");

const ns = "lab.bycity";
const cities = ["Bengaluru", "Chennai", "Delhi", "Hyderabad", "Jaipur", "Kochi", "Kolkata", "Pune"];
step("enableSharding lab", () => sh.enableSharding("lab"));
eq("shardCollection lab.bycity {city: 1}",
   (step("sc", () => sh.shardCollection(ns, { city: 1 })) || {}).ok, 1);
const docs = [];
for (let i = 0; i < 2000; i++) {
  docs.push({ city: cities[i % 8], orderNo: i, customerId: i % 997, pad: "x".repeat(300) });
}
eq("insert 2000 orders",
   Object.keys((step("insertMany", () => db.getSiblingDB("lab").bycity.insertMany(docs)) ||
                { insertedIds: {} }).insertedIds).length, 2000);
for (const c of ["Chennai", "Delhi", "Hyderabad", "Jaipur", "Kochi", "Pune"]) {
  eq("splitAt " + c, (step("splitAt " + c, () => sh.splitAt(ns, { city: c })) || {}).ok, 1);
}
eq("the seed's seven chunks",
   chunksOf(ns).map(c => [longStr(c.min.city), longStr(c.max.city)]),
   [["MinKey", "Chennai"], ["Chennai", "Delhi"], ["Delhi", "Hyderabad"], ["Hyderabad", "Jaipur"],
    ["Jaipur", "Kochi"], ["Kochi", "Pune"], ["Pune", "MaxKey"]]);

// > sh.splitFind("lab.bycity", {city: "Chennai"})
// split Chennai chunk: CannotSplit - Unable to find median in chunk because chunk is indivisible.
const e = expectError("splitFind on the one-city chunk", () => sh.splitFind(ns, { city: "Chennai" }),
                      { codeName: "CannotSplit",
                        message: "Unable to find median in chunk because chunk is indivisible." });
if (e) {
  eq("the seed's line", "split Chennai chunk: " + e.codeName + " - " + e.message,
     "split Chennai chunk: CannotSplit - Unable to find median in chunk because chunk is indivisible.");
}
eq("still seven chunks", chunksOf(ns).length, 7);

// A chunk with two cities (Kochi and Kolkata) does divide, at the only possible boundary.
eq("splitFind on the two-city chunk",
   (step("splitFind Kochi", () => sh.splitFind(ns, { city: "Kochi" })) || {}).ok, 1);
eq("the two-city chunk split at Kolkata",
   chunksOf(ns).map(c => c.min.city).filter(b => typeof b === "string" && b >= "Kochi" && b < "Pune"),
   ["Kochi", "Kolkata"]);

finish();
