// config.system.sessions before 7.0 (issue 33): the balancer pre-splits it into
// minNumChunksForSessionsCollection (1,024) chunks on _id.id, so a 6.0 sh.status() shows
//   'config.system.sessions': { shardKey: { _id: 1 }, unique: false, balancing: true,
//     chunkMetadata: [ { shard: 'shard1Set', nChunks: 1024 } ],
//     chunks: [ 'too many chunks to print, use verbose if you want to force print' ], tags: [] }
// (a real 6.0.3 cluster, tests/fixtures/real-config/sh.status-6.0.3.txt). The split points are
// {_id: {id: UUID}} whose first 32 bits are i << 22, the rest zero (4.x and 6.0-era
// db/s/balancer/balancer_chunk_selection_policy_impl.cpp, getSplitCandidatesForSessionsCollection;
// the first bound, UUID('00400000-0000-0000-0000-000000000000'), as in the real 4.4.1
// config.chunks of tests/fixtures/real-config/chunks-4.4.ejson.txt). From 7.0 it stays one chunk
// (SERVER-78657; the 7.1 compatibility notes; sh.status-7.0.24.txt).
load(__dirname + "/lib.js");
begin("sessions_presplit_60");

eq("db.version()", step("db.version()", () => db.version()), "6.0.3");
const st = step("sh.status()", () => sh.status());
const cfg = st && (st.value.databases || []).find(d => d.database._id === "config");
const sessions = cfg && cfg.collections["config.system.sessions"];
eq("sh.status(): config.system.sessions shard key", sessions && sessions.shardKey, { _id: 1 });
eq("sh.status(): 1,024 chunks on one shard", sessions && sessions.chunkMetadata,
   [{ shard: "shard0000", nChunks: 1024 }]);
// Past 20 chunks mongosh 2.x prints the first 20, then the line the 6.0.3-era mongosh printed
// alone (getPrintableShardStatus in mongosh's packages/shell-api/src/helpers.ts).
const printed = (sessions && sessions.chunks) || [];
eq("sh.status(): the first 20 chunks, then too many to print",
   [printed.length, printed[printed.length - 1], printed[0] && printed[0]["on shard"]],
   [21, "too many chunks to print, use verbose if you want to force print", "shard0000"]);

const chunks = chunksOf("config.system.sessions");
eq("config.chunks: 1,024 sessions chunks", chunks.length, 1024);
const uuidHex = v => v && v.id ? v.id.toString("hex") : show(v);
eq("the first chunk: MinKey to UUID 00400000-…", [isMinKey(chunks[0].min._id), uuidHex(chunks[0].max._id)],
   [true, "00400000000000000000000000000000"]);
eq("the 512th bound: 80000000-…", uuidHex(chunks[512].min._id), "80000000000000000000000000000000");
eq("the last chunk: UUID ffc00000-… to MaxKey", [uuidHex(chunks[1023].min._id), isMaxKey(chunks[1023].max._id)],
   ["ffc00000000000000000000000000000", true]);

finish();
