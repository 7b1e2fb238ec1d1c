// Helpers shared by the mongosh scripts of tests/clients, loaded with
// `load(__dirname + "/lib.js")`.
//
// A script calls begin(name), then runs its recipe through these checks. A failed check is
// printed ("FAIL label: …") and recorded, and the script goes on, so one run lists every wrong
// answer; finish() then prints "OK <name>" or throws (mongosh exits 1 on an uncaught exception).

var __checks = { name: "?", failures: [] };

function begin(name) {
  __checks.name = name;
  __checks.failures = [];
}

// Extended JSON of a value, for messages and comparisons of small documents (relaxed: Int32,
// Int64 and doubles that are equal numbers compare equal; big Long values are compared with
// longStr below instead).
function show(v) {
  if (v === undefined) return "undefined";
  try {
    return EJSON.stringify(v);
  } catch (e) {
    return String(v);
  }
}

function fail(label, why) {
  __checks.failures.push(label + ": " + why);
  print("FAIL " + label + ": " + why);
}

function check(label, cond, detail) {
  if (cond) {
    print("ok   " + label);
  } else {
    fail(label, detail === undefined ? "not true" : detail);
  }
  return !!cond;
}

function eq(label, got, want) {
  const g = show(got);
  const w = show(want);
  return check(label, g === w, "got " + g + ", want " + w);
}

// A server error as a line: codeName (code): message.
function errText(e) {
  return (e.codeName || e.name) + " (" + e.code + "): " + e.message;
}

// fn's value, or undefined (and a failure) when it throws. (The value is assigned before it is
// returned: mongosh's async rewriting awaits a shell call's promise only there, inside the try.)
function step(label, fn) {
  try {
    const value = fn();
    return value;
  } catch (e) {
    fail(label, "threw " + errText(e));
    return undefined;
  }
}

// fn must throw; `want` may name codeName, code, message (exact), messageEnd (the message ends
// with it) and messageRe (a RegExp). Returns the error, or null.
function expectError(label, fn, want) {
  let r;
  try {
    r = fn();
  } catch (e) {
    const bad = [];
    if (want.codeName !== undefined && e.codeName !== want.codeName)
      bad.push("codeName " + show(e.codeName) + ", want " + show(want.codeName));
    if (want.code !== undefined && e.code !== want.code)
      bad.push("code " + show(e.code) + ", want " + show(want.code));
    if (want.message !== undefined && e.message !== want.message)
      bad.push("message " + show(e.message) + ", want " + show(want.message));
    if (want.messageEnd !== undefined && !String(e.message).endsWith(want.messageEnd))
      bad.push("message " + show(e.message) + ", want it to end with " + show(want.messageEnd));
    if (want.messageRe !== undefined && !want.messageRe.test(String(e.message)))
      bad.push("message " + show(e.message) + ", want it to match " + String(want.messageRe));
    check(label, bad.length === 0, bad.join("; ") + " [error was " + errText(e) + "]");
    return e;
  }
  fail(label, "no error; answered " + show(r));
  return null;
}

function isMinKey(v) {
  return v !== null && typeof v === "object" && v._bsontype === "MinKey";
}

function isMaxKey(v) {
  return v !== null && typeof v === "object" && v._bsontype === "MaxKey";
}

// A Long (or number) as its decimal digits; MinKey/MaxKey by name.
function longStr(v) {
  if (isMinKey(v)) return "MinKey";
  if (isMaxKey(v)) return "MaxKey";
  return v === undefined || v === null ? String(v) : v.toString();
}

// The chunks of a sharded collection from config.chunks (by uuid from 5.0, by ns before), in
// shard-key order.
function chunksOf(ns) {
  const config = db.getSiblingDB("config");
  const coll = config.collections.findOne({ _id: ns });
  if (!coll) return [];
  const filter = coll.uuid ? { uuid: coll.uuid } : { ns: ns };
  return config.chunks.find(filter).sort({ min: 1 }).toArray();
}

// explain("executionStats") of find(filter) on coll, summarized: stage, nReturned, and per shard
// {shard, nReturned, docsExamined, keysExamined} in the order explain lists them.
function explainFind(coll, filter) {
  const e = coll.find(filter).explain("executionStats");
  const shards = (e.executionStats.executionStages.shards || []).map(s => ({
    shard: s.shardName,
    nReturned: Number(s.nReturned),
    docsExamined: Number(s.totalDocsExamined),
    keysExamined: Number(s.totalKeysExamined),
  }));
  return {
    stage: e.queryPlanner.winningPlan.stage,
    nReturned: Number(e.executionStats.nReturned),
    shards: shards,
    plannedShards: (e.queryPlanner.winningPlan.shards || []).map(s => s.shardName),
  };
}

// The shards holding at least one document matching filter (by explain's per-shard nReturned).
function shardsHolding(coll, filter) {
  return explainFind(coll, filter)
    .shards.filter(s => s.nReturned > 0)
    .map(s => s.shard)
    .sort();
}

function finish() {
  const f = __checks.failures;
  if (f.length > 0) {
    throw new Error(__checks.name + ": " + f.length + " check(s) failed:\n  " + f.join("\n  "));
  }
  print("OK " + __checks.name);
}
