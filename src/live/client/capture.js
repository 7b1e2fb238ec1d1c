// The poll of `shardtop capture` in mongosh: the same reads in the same shape, each kept with
// the server's reply (or refusal), printed as a shardtop capture (docs/capture.md) once the poll
// is done: a header line, then one line per read in canonical Extended JSON.
//
// Each step below names the shardtop source file whose read it repeats; the constants above
// (`SHARDTOP`) are written by shardtop from its own. Nothing here writes to the cluster: every
// command is checked against SHARDTOP.allowed before it is sent.
(function () {
  'use strict';
  const C = SHARDTOP;
  const lines = [];
  let reads = 0;

  // A failure that stops the capture: nothing is printed on stdout, the reason on stderr, exit 1
  // (as `shardtop capture` writes no file when its poll fails).
  function Stop(message) {
    this.message = message;
  }
  function stop(message) {
    throw new Stop(message);
  }

  // `mongodb://user:pw@h1,h2/db?x` -> `mongodb://h1,h2` (live/client.rs `hosts`).
  function hosts(uri) {
    const at = uri.indexOf('://');
    const scheme = at < 0 ? 'mongodb' : uri.slice(0, at);
    let rest = at < 0 ? uri : uri.slice(at + 3);
    const slash = rest.indexOf('/');
    const q = rest.indexOf('?');
    let end = rest.length;
    if (slash >= 0) end = slash;
    if (q >= 0 && q < end) end = q;
    rest = rest.slice(0, end);
    const userinfo = rest.lastIndexOf('@');
    return scheme + '://' + (userinfo < 0 ? rest : rest.slice(userinfo + 1));
  }
  const target = hosts(String(db.getMongo()._uri || db.getMongo().getURI()));

  function ejson(v) {
    return EJSON.stringify(v, { relaxed: false });
  }
  function num(v) {
    return v === undefined || v === null ? v : Number(v.valueOf());
  }
  function isType(v, name) {
    return v !== null && typeof v === 'object' && v._bsontype === name;
  }

  // The refusal of a command as shardtop words it (live/client/errors.rs `command_error`).
  function words(code, codeName, errmsg) {
    if (code === 13) {
      return 'not authorized on ' + target + ': ' + errmsg +
        ' — `shardtop watch URI --check` lists the privileges each read needs';
    }
    return target + ': ' + codeName + ' (' + code + ') ' + errmsg;
  }

  // One command (live/client.rs `command_kept`): on the allowlist, or not sent at all. A server's
  // refusal is an answer ({error}); anything else (the network, a timeout) stops the capture.
  function send(dbName, cmd) {
    const name = Object.keys(cmd)[0];
    if (C.allowed.indexOf(name) < 0) {
      stop('refused to send ' + JSON.stringify(name) + ': it is not one of the read commands shardtop allows');
    }
    try {
      return { reply: db.getSiblingDB(dbName).runCommand(cmd, { promoteValues: false }) };
    } catch (e) {
      const code = num(e.code);
      if (typeof code === 'number' && e.codeName !== undefined) {
        const errmsg = String(e.errmsg !== undefined ? e.errmsg : e.message);
        return { error: { code: code, codeName: String(e.codeName), errmsg: errmsg } };
      }
      stop(name + ' on ' + dbName + ': ' + (e && e.message ? e.message : String(e)));
    }
  }

  // One read as a capture line (capture/file.rs `to_writer`).
  function keep(dbName, cmd, outcome) {
    const i = reads++;
    const head = '{"read":' + i + ',"db":' + JSON.stringify(dbName) + ',"command":' + ejson(cmd);
    if (outcome.reply !== undefined) {
      lines.push(head + ',"reply":' + ejson(outcome.reply) + '}');
    } else if (outcome.error !== undefined) {
      const e = outcome.error;
      const out = {};
      if (e.code !== undefined) out.code = e.code;
      if (e.codeName !== undefined) out.codeName = e.codeName;
      out.errmsg = e.errmsg;
      lines.push(head + ',"error":' + JSON.stringify(out) + '}');
    } else {
      const docs = outcome.docs;
      const batch = function (from) {
        const parts = [];
        for (let k = from; k < Math.min(docs.length, from + C.batch); k++) parts.push(ejson(docs[k]));
        return '[' + parts.join(',') + ']';
      };
      lines.push(head + ',"documents":' + docs.length + ',"batch":' + batch(0) + '}');
      for (let from = C.batch; from < docs.length; from += C.batch) {
        lines.push('{"read":' + i + ',"batch":' + batch(from) + '}');
      }
    }
  }

  // A command kept whole: its reply or its refusal.
  function command(dbName, cmd) {
    const out = send(dbName, cmd);
    keep(dbName, cmd, out);
    return out;
  }

  // Every document of a cursor, following getMore, bounded as shardtop bounds a read
  // (live/bounds.rs `Bounds`, `Tally`; `held`: its documents are kept whole in memory). `kept`:
  // the command as the capture keeps it (a scan of config.chunks keeps `find` and `filter`).
  function drain(dbName, cmd, held, kept) {
    const read = (Object.keys(cmd)[0] === 'find' ? 'find ' : 'aggregate ') + dbName + '.' +
      (typeof cmd[Object.keys(cmd)[0]] === 'string' ? cmd[Object.keys(cmd)[0]] : '');
    const first = send(dbName, cmd);
    if (first.error !== undefined) {
      keep(dbName, kept || cmd, first);
      return first;
    }
    const cursor = first.reply.cursor;
    if (!cursor) stop(target + ': a cursor reply without `cursor`');
    const ns = String(cursor.ns || '');
    const coll = ns.indexOf('.') < 0 ? ns : ns.slice(ns.indexOf('.') + 1);
    const maxBytes = held ? C.bounds.heldBytes : C.bounds.bytes;
    const docs = [];
    let bytes = 0;
    let getMores = 0;
    let id = cursor.id;
    let batch = cursor.firstBatch || [];
    for (;;) {
      for (let k = 0; k < batch.length; k++) {
        docs.push(batch[k]);
        bytes += bsonsize(batch[k]);
        if (docs.length > C.bounds.documents || bytes > maxBytes) {
          kill(dbName, coll, id);
          stop(read + ': more than ' + (docs.length > C.bounds.documents ? C.bounds.documents + ' documents' : maxBytes + ' bytes') +
            ' — stopped (a read is bounded; see docs/watch.md)');
        }
      }
      if (id === undefined || id === null || String(id) === '0') break;
      if (++getMores > C.bounds.getMores) {
        kill(dbName, coll, id);
        stop(read + ': more than ' + C.bounds.getMores + ' getMores — stopped (a cursor that does not end)');
      }
      const more = send(dbName, { getMore: id, collection: coll });
      if (more.error !== undefined) {
        // A getMore refused after the cursor began: its code and shardtop's words, no code name
        // (live/client/captured.rs `failed`).
        const e = more.error;
        const out = { error: { code: e.code, errmsg: words(e.code, e.codeName, e.errmsg) } };
        keep(dbName, kept || cmd, out);
        return out;
      }
      const next = more.reply.cursor;
      if (!next) stop(target + ': a cursor reply without `cursor`');
      id = next.id;
      batch = next.nextBatch || [];
    }
    keep(dbName, kept || cmd, { docs: docs });
    return { docs: docs };
  }

  function kill(dbName, coll, id) {
    if (id === undefined || id === null || String(id) === '0') return;
    try {
      send(dbName, { killCursors: coll, cursors: [id] });
    } catch (e) {
      // Stopping anyway: the cursor times out on the server.
    }
  }

  // live/client.rs `find`: `{find, filter, batchSize: 10000}` and its documents.
  function find(coll, filter) {
    return drain('config', { find: coll, filter: filter, batchSize: C.findBatch }, true);
  }

  // The release line of a version string (cluster/version.rs `FromStr`), or null.
  function line(text) {
    const numeric = String(text).trim().split(/[-+]/)[0];
    const parts = numeric.split('.');
    const ok = /^[0-9]+$/;
    if (parts.length < 2 || parts.length > 3 || !ok.test(parts[0]) || !ok.test(parts[1])) return null;
    if (parts.length === 3 && !ok.test(parts[2])) return null;
    const l = [Number(parts[0]), Number(parts[1])];
    return C.lines.indexOf(l[0] + '.' + l[1]) < 0 ? null : l;
  }
  function atLeast(l, major, minor) {
    return l[0] > major || (l[0] === major && l[1] >= minor);
  }
  function patchOf(text) {
    const p = String(text).split(/[-+]/)[0].split('.')[2];
    return p !== undefined && /^[0-9]+$/.test(p) ? Number(p) : null;
  }
  // live/data_sizes.rs `has_sharded_data_distribution`: from 6.0.3 (a string that does not
  // parse: a recent server).
  function hasShardedDataDistribution(text) {
    const l = line(text);
    if (l === null) return true;
    const patch = patchOf(text);
    return atLeast(l, 6, 1) || (l[0] === 6 && l[1] === 0 && (patch === null || patch >= 3));
  }
  // live/catalog.rs `has_list_cluster_catalog`: 8.0.10+ and 8.1+ (a string that does not parse:
  // a server without it).
  function hasListClusterCatalog(text) {
    const parts = String(text).split(/[-+]/)[0].split('.');
    const n = function (p) {
      return p !== undefined && /^[0-9]+$/.test(p) ? Number(p) : null;
    };
    const major = n(parts[0]);
    const minor = n(parts[1]);
    if (major !== null && major > 8) return true;
    if (major === 8 && minor !== null && minor > 0) return true;
    if (major === 8 && minor === 0 && parts.length > 2) {
      const patch = n(parts[2]);
      return patch !== null && patch >= 10;
    }
    return false;
  }

  function capture() {
    const at = Date.now();
    // live/client.rs `hello`: `hello`, or `isMaster` before 4.4.2 (CommandNotFound, 59).
    let hello = command('admin', { hello: 1 });
    if (hello.error !== undefined && hello.error.code === 59) hello = command('admin', { isMaster: 1 });
    if (hello.error !== undefined) stop(words(hello.error.code, hello.error.codeName, hello.error.errmsg));
    // live/handshake.rs `mongos_version`, live/bounds.rs `check_hello`.
    if (hello.reply.msg !== 'isdbgrid') {
      stop(target + ' is not a mongos (hello.msg is not "isdbgrid"): point mongosh at a mongos of the sharded cluster');
    }
    const advertised = num(hello.reply.maxMessageSizeBytes);
    if (typeof advertised === 'number' && advertised > C.maxMessageSizeBytes) {
      stop(target + ' advertises maxMessageSizeBytes ' + advertised + ' in hello, more than a real mongos sends — refused');
    }
    const info = command('admin', { buildInfo: 1 });
    if (info.error !== undefined) stop(words(info.error.code, info.error.codeName, info.error.errmsg));
    const version = typeof info.reply.version === 'string' ? info.reply.version : '8.0';
    const l = line(version);
    if (l === null) stop('unknown server version ' + JSON.stringify(version));
    // `--server-version V`: V itself, of line V, or V with a vendor's suffix (`8.0.4-2`).
    const base = version.split(/[-+]/)[0];
    if (C.serverVersion !== null && version !== C.serverVersion && base !== C.serverVersion &&
      base.indexOf(C.serverVersion + '.') !== 0) {
      stop('this script was made for MongoDB ' + C.serverVersion + ' and the mongos is ' + version +
        ': make one with `shardtop capture --script` (without --server-version)');
    }

    // live/poller.rs `read`: shards and collections (essential: refused, no capture).
    const shards = find('shards', {});
    if (shards.error !== undefined) stop(words(shards.error.code, shards.error.codeName, shards.error.errmsg));
    const collections = find('collections', {});
    if (collections.error !== undefined) {
      stop(words(collections.error.code, collections.error.codeName, collections.error.errmsg));
    }
    // live/catalog.rs `shown`: 4.4 keeps dropped collections.
    const colls = [];
    for (let k = 0; k < collections.docs.length; k++) {
      if (collections.docs[k].dropped !== true) colls.push(collections.docs[k]);
    }
    colls.sort(function (a, b) {
      return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
    });
    // live/poller.rs `refresh` (a first poll loads every chunk): by uuid when the entry has a
    // `timestamp` (5.0+), else by `ns` (live/config.rs `chunk_owner`).
    const withChunks = [];
    for (let k = 0; k < colls.length; k++) {
      const c = colls[k];
      const owner = isType(c.timestamp, 'Timestamp') && isType(c.uuid, 'Binary') ? { uuid: c.uuid } : { ns: c._id };
      const cmd = { find: 'chunks', filter: owner, batchSize: C.findBatch };
      const chunks = drain('config', cmd, false, { find: 'chunks', filter: owner });
      if (chunks.error !== undefined) stop(words(chunks.error.code, chunks.error.codeName, chunks.error.errmsg));
      if (chunks.docs.length > 0 && c.unsplittable !== true) withChunks.push(c._id);
    }
    find('tags', {});
    find('settings', {});
    const databases = find('databases', {});
    const primaries = {};
    for (let k = 0; databases.docs !== undefined && k < databases.docs.length; k++) {
      const d = databases.docs[k];
      if (typeof d._id === 'string' && typeof d.primary === 'string' && !(d._id in primaries)) {
        primaries[d._id] = d.primary;
      }
    }
    // live/catalog.rs `untracked` (8.0.10+, 8.1+).
    const untracked = [];
    if (hasListClusterCatalog(version)) {
      const catalog = drain('admin', {
        aggregate: 1,
        pipeline: [
          { $listClusterCatalog: { shards: true } },
          { $match: { sharded: false } },
          { $project: { _id: 0, ns: 1, db: 1, type: 1, shards: 1 } },
        ],
        cursor: {},
      }, true);
      const tracked = {};
      for (let k = 0; k < colls.length; k++) tracked[colls[k]._id] = true;
      for (let k = 0; catalog.docs !== undefined && k < catalog.docs.length; k++) {
        const d = catalog.docs[k];
        if (d.type !== 'collection' || typeof d.ns !== 'string') continue;
        const dot = d.ns.indexOf('.');
        if (dot < 0) continue;
        const dbName = d.ns.slice(0, dot);
        const coll = d.ns.slice(dot + 1);
        const system = coll.indexOf('system.') === 0 && coll.indexOf('system.buckets.') !== 0;
        if (system || dbName === 'admin' || dbName === 'config' || dbName === 'local') continue;
        if (tracked[d.ns] === true) continue;
        const named = Array.isArray(d.shards) && typeof d.shards[0] === 'string';
        if (!named && !(dbName in primaries)) continue;
        if (untracked.indexOf(d.ns) < 0) untracked.push(d.ns);
      }
      untracked.sort();
    }
    // live/data_sizes.rs `read`: `$shardedDataDistribution` from 6.0.3 (40324: `$collStats`
    // instead), else `$collStats` of each sharded collection until one is refused.
    const collStats = function (ns) {
      const dot = ns.indexOf('.');
      const dbName = dot < 0 ? ns : ns.slice(0, dot);
      const coll = dot < 0 ? '' : ns.slice(dot + 1);
      return drain(dbName, { aggregate: coll, pipeline: [{ $collStats: { storageStats: {} } }], cursor: {} }, true);
    };
    const sharded = [];
    for (let k = 0; k < colls.length; k++) if (colls[k].unsplittable !== true) sharded.push(colls[k]._id);
    let perCollection = true;
    if (hasShardedDataDistribution(version)) {
      const sdd = drain('admin', { aggregate: 1, pipeline: [{ $shardedDataDistribution: {} }], cursor: {} }, true);
      perCollection = sdd.error !== undefined && sdd.error.code === 40324;
    }
    for (let k = 0; perCollection && k < sharded.length; k++) {
      if (collStats(sharded[k]).error !== undefined) break;
    }
    // live/catalog.rs `UnsplittableSizes`: at most FRESH_PER_POLL `$collStats`.
    const unsharded = [];
    for (let k = 0; k < colls.length; k++) if (colls[k].unsplittable === true) unsharded.push(colls[k]._id);
    for (let k = 0; k < untracked.length; k++) unsharded.push(untracked[k]);
    for (let k = 0; k < unsharded.length && k < C.freshPerPoll; k++) {
      if (collStats(unsharded[k]).error !== undefined) break;
    }
    // live/logs.rs `read` (a first poll): the changelog's migration counts, then the newest
    // PAGE entries of config.changelog and of config.actionlog's balancer rounds.
    const counted = drain('config', {
      aggregate: 'changelog',
      pipeline: [
        { $match: { what: { $in: ['moveChunk.commit', 'moveChunk.error'] } } },
        { $group: { _id: '$what', n: { $sum: 1 } } },
      ],
      cursor: {},
    }, true);
    if (counted.error === undefined) {
      const page = Long.fromNumber(C.logPage);
      const tail = function (coll, filter) {
        return drain('config', { find: coll, filter: filter, sort: { time: -1 }, limit: page, batchSize: page }, true);
      };
      if (tail('changelog', {}).error === undefined) tail('actionlog', { what: 'balancer.round' });
    }
    // live/poller.rs `poll`: the balancer's status, migrations in flight
    // (live/balancer_status.rs `current_migrations`), reshardings from 5.0
    // (live/resharding_progress.rs).
    command('admin', { balancerStatus: 1 });
    drain('admin', {
      aggregate: 1,
      pipeline: [
        { $currentOp: { allUsers: true, localOps: false } },
        { $match: { $or: [{ 'command.moveChunk': { $exists: true } }, { 'command._shardsvrMoveRange': { $exists: true } }] } },
      ],
      cursor: {},
    }, true);
    if (atLeast(l, 5, 0)) {
      drain('admin', {
        aggregate: 1,
        pipeline: [
          { $currentOp: { allUsers: true, localOps: false } },
          { $match: { type: 'op', 'originatingCommand.reshardCollection': { $exists: true } } },
        ],
        cursor: {},
      }, true);
    }
    // live/draining.rs `DrainWatch::read`: `shardDrainingStatus` of each draining shard from 8.2,
    // until one is refused to this user.
    if (atLeast(l, 8, 2)) {
      for (let k = 0; k < shards.docs.length; k++) {
        const s = shards.docs[k];
        if (s.draining !== true || typeof s._id !== 'string') continue;
        const r = command('admin', { shardDrainingStatus: s._id });
        if (r.error !== undefined && r.error.code === 13) break;
      }
    }
    // live/compliance.rs (every collection: a capture asks them all): `balancerCollectionStatus`
    // of each sharded collection with chunks, until one is refused to this user.
    for (let k = 0; k < withChunks.length; k++) {
      const r = command('admin', { balancerCollectionStatus: withChunks[k] });
      if (r.error !== undefined && r.error.code === 13) break;
    }

    const header = {
      kind: C.kind,
      format: C.format,
      capturedAtMs: at,
      capturedAt: new Date(at).toISOString(),
      target: target,
      serverVersion: typeof info.reply.version === 'string' ? info.reply.version : null,
      anonymized: false,
      reads: reads,
    };
    print(JSON.stringify(header));
    for (let k = 0; k < lines.length; k++) print(lines[k]);
  }

  try {
    capture();
  } catch (e) {
    // On stderr (mongosh's console.error writes to stdout, where the capture goes).
    const why = e instanceof Stop ? e.message : 'stopped: ' + (e && e.stack ? e.stack : String(e));
    process.stderr.write('shardtop capture script: ' + why + ' — nothing written\n');
    quit(1);
  }
})();
