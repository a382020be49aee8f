// Mongoose's side of the e2e CPU rows (benches/cpu in the Rust benches): the
// client's CPU per round trip of Mongoose's calls beside the node driver's
// call a user would write by hand for the same command, against the server
// of MONGODB_URI.
//
// Per shape (S, M, L of benches/SHAPES.md) and round trip, as the Rust rows:
// save() of one scalar (`counter`), of one pushed comment (taken back after
// each timed round trip, untimed, so the document keeps its size) and of a
// whole-array rewrite (`tags` rotated; S has no array), a request handler's
// cycle (`load_save`: findById, one scalar changed, save(); by hand findOne,
// then the same versioned updateOne), findById, bulkSave of every document
// (1,000; L 100) and find of every document. Each side has its own database
// holding the same documents (same _ids) and both make the same changes:
// before timing, monitored clients run round trips of both sides and the
// commands are compared (names, count and bodies; the session, cluster time,
// cursor id and database name aside); after timing both databases must hold
// the same documents (the first one, which the saves change, whole; every
// document's counter and version after a batch). Each side loads only what
// its round trips need.
//
// The figure is the process's CPU time (process.cpuUsage(): user + system,
// the whole process) per round trip, taken around each one; the sides
// alternate in blocks (ODM_CPU_OPS round trips each, each side first every
// other round, ODM_CPU_ROUNDS rounds, after an untimed round). Same knobs as
// the Rust rows: ODM_CPU_DOCS, ODM_BENCH_QUICK=1 (one round trip per side
// and row, the compared ones). ODM_CPU_KINDS (this side's only) picks the
// rows: round-trip names, space- or comma-separated (e.g. `load_save`);
// default all.
//
// `node e2e.mjs [S] [M] [L]` prints `NODE SHAPE ROW mongoose_ns N` and
// `NODE SHAPE ROW node_ns N` lines and a table.
import mongoose from 'mongoose';
import { MongoClient, ObjectId } from 'mongodb';
import { isDeepStrictEqual } from 'node:util';
import { date, letters } from './gen.mjs';

const uri = process.env.MONGODB_URI;
if (!uri) throw new Error('MONGODB_URI is not set (e2e.sh starts a server and sets it)');
const quick = !!process.env.ODM_BENCH_QUICK && process.env.ODM_BENCH_QUICK !== '0';
const env = (name, fallback) => Math.max(1, Number(process.env[name] ?? fallback) || fallback);

// The same documents as shapes.mjs, from the same generator (gen.mjs; same sizes as the Rust side).
const comment = (i) => ({ _id: new ObjectId(), author: letters(10), text: letters(55), likes: i % 17 });
function small() {
  return {
    _id: new ObjectId(), name: letters(16), email: letters(24), city: letters(12),
    status: 'active', age: 33, score: 1234.5, counter: 0, active: true, verified: false,
    createdAt: date(), __v: 0,
  };
}
function article(comments) {
  return {
    _id: new ObjectId(), title: letters(60), slug: letters(60), author: letters(20),
    email: letters(28), category: letters(12), summary: letters(200), body: letters(600),
    lang: 'en', status: 'published', source: letters(40), views: 1000, score: 42.5,
    rating: 4, counter: 0, wordCount: 812, published: true, featured: false,
    archived: false, createdAt: date(), updatedAt: date(),
    comments: Array.from({ length: comments }, (_, i) => comment(i)),
    tags: Array.from({ length: 20 }, () => 'tag-' + letters(14)),
    __v: 0,
  };
}

const options = { optimisticConcurrency: true, versionKey: '__v' };
const smallSchema = () => new mongoose.Schema({
  name: String, email: String, city: String, status: String, age: Number,
  score: Number, counter: Number, active: Boolean, verified: Boolean, createdAt: Date,
}, { ...options, collection: 'bench_s' });
const articleSchema = () => new mongoose.Schema({
  title: String, slug: String, author: String, email: String, category: String,
  summary: String, body: String, lang: String, status: String, source: String,
  views: Number, score: Number, rating: Number, counter: Number, wordCount: Number,
  published: Boolean, featured: Boolean, archived: Boolean, createdAt: Date,
  updatedAt: Date, comments: [new mongoose.Schema({ author: String, text: String, likes: Number })],
  tags: [String],
}, { ...options, collection: 'bench_article' });

const KINDS = ['save_scalar', 'save_push', 'save_rewrite', 'load_save', 'find_by_id', 'bulk_save', 'find_many'];
// ODM_CPU_KINDS: a subset of KINDS (an unknown name is an error, not an
// empty run).
const picked = (process.env.ODM_CPU_KINDS ?? '').split(/[\s,]+/).filter(Boolean);
for (const k of picked) if (!KINDS.includes(k)) throw new Error(`ODM_CPU_KINDS: ${k} is not one of ${KINDS.join(' ')}`);
const RUN = picked.length ? KINDS.filter((k) => picked.includes(k)) : KINDS;
const ARRAYS = new Set(['save_push', 'save_rewrite']);
const MANY = new Set(['bulk_save', 'find_many']);
let counter = 1;

// A connection pair (Mongoose's, the driver's) on databases `base`_mongoose
// and `base`_node; with `monitor`, every command either starts is recorded
// (in one array, in order).
async function sides(base, shape, monitor) {
  const recorded = [];
  const conn = await mongoose.createConnection(uri, { dbName: `${base}_mongoose`, monitorCommands: monitor }).asPromise();
  const client = await new MongoClient(uri, { monitorCommands: monitor }).connect();
  if (monitor) {
    for (const c of [conn.getClient(), client]) c.on('commandStarted', (e) => recorded.push(e.command));
  }
  const Model = shape === 'S' ? conn.model('Small', smallSchema()) : conn.model('Article', articleSchema());
  const collection = client.db(`${base}_node`).collection(Model.collection.collectionName);
  return { conn, client, Model, collection, recorded };
}

// One side's state for `kind`, loaded as its round trips need it (the first
// document for a save, every document for a batch; nothing for load_save,
// which reads the first document in each round trip): Mongoose's documents,
// or what the hand-written code knows of the stored ones (id, version, tags).
async function loadMongoose(s, kind, first, count) {
  if (ARRAYS.has(kind) || kind === 'save_scalar') {
    const one = await s.Model.findById(first);
    if (!one) throw new Error('the first document');
    return { one, many: [], count, first };
  }
  const many = kind === 'bulk_save' ? await s.Model.find({}).sort({ _id: 1 }) : [];
  return { one: null, many, count, first };
}
async function loadNode(s, kind, first, count) {
  let read = [];
  if (ARRAYS.has(kind) || kind === 'save_scalar') read = [await s.collection.findOne({ _id: first })];
  else if (kind === 'bulk_save') {
    read = await s.collection.find({}).project({ _id: 1, __v: 1 }).sort({ _id: 1 }).toArray();
  }
  return { mirrors: read.map((d) => ({ _id: d._id, v: d.__v, tags: d.tags ?? [] })), first, count };
}

const ops = {
  async mongoose(s, st, kind, n, pool) {
    switch (kind) {
      case 'save_scalar': st.one.counter = n; await st.one.save(); break;
      case 'save_push': st.one.comments.push(pool[n % pool.length]); await st.one.save(); break;
      case 'save_rewrite': st.one.tags = [...st.one.tags.slice(1), st.one.tags[0]]; await st.one.save(); break;
      case 'load_save': {
        const d = await s.Model.findById(st.first);
        if (!d) throw new Error('found');
        d.counter = n;
        await d.save();
        break;
      }
      case 'find_by_id': if (!(await s.Model.findById(st.first))) throw new Error('found'); break;
      case 'bulk_save': await s.Model.bulkSave(st.many); break;
      case 'find_many': if ((await s.Model.find({})).length !== st.count) throw new Error('every document'); break;
    }
  },
  async mongooseRestore(s, st, kind) {
    if (kind === 'save_push') { st.one.comments.pop(); await st.one.save(); }
  },
  mongoosePrepare(st, kind, n) {
    if (kind === 'bulk_save') for (const d of st.many) d.counter = n;
  },
  async node(s, st, kind, n, pool) {
    const m = st.mirrors[0];
    const one = async (update) => {
      const r = await s.collection.updateOne({ _id: m._id, __v: m.v }, update);
      if (r.matchedCount !== 1) throw new Error('the hand-written update matched');
      m.v += 1;
    };
    switch (kind) {
      case 'save_scalar': await one({ $set: { counter: n }, $inc: { __v: 1 } }); break;
      case 'save_push': {
        const c = pool[n % pool.length];
        await one({ $push: { comments: { $each: [{ _id: c._id, author: c.author, text: c.text, likes: c.likes }] } }, $inc: { __v: 1 } });
        break;
      }
      case 'save_rewrite':
        m.tags = [...m.tags.slice(1), m.tags[0]];
        await one({ $set: { tags: m.tags }, $inc: { __v: 1 } });
        break;
      case 'load_save': {
        // What Mongoose's save() sends (optimisticConcurrency): the version
        // read in the filter, bumped in the update.
        const raw = await s.collection.findOne({ _id: st.first });
        if (!raw) throw new Error('found');
        const r = await s.collection.updateOne({ _id: st.first, __v: raw.__v }, { $set: { counter: n }, $inc: { __v: 1 } });
        if (r.matchedCount !== 1) throw new Error('the hand-written update matched');
        break;
      }
      case 'find_by_id': if (!(await s.collection.findOne({ _id: st.first }))) throw new Error('found'); break;
      case 'bulk_save': {
        const r = await s.collection.bulkWrite(st.mirrors.map((d) => ({
          updateOne: { filter: { _id: d._id, __v: d.v }, update: { $set: { counter: n }, $inc: { __v: 1 } } },
        })));
        if (r.matchedCount !== st.mirrors.length) throw new Error('every update matched');
        for (const d of st.mirrors) d.v += 1;
        break;
      }
      case 'find_many': if ((await s.collection.find({}).toArray()).length !== st.count) throw new Error('every document'); break;
    }
  },
  async nodeRestore(s, st, kind) {
    if (kind !== 'save_push') return;
    const m = st.mirrors[0];
    const r = await s.collection.updateOne({ _id: m._id, __v: m.v }, { $pop: { comments: 1 }, $inc: { __v: 1 } });
    if (r.matchedCount !== 1) throw new Error('the pop matched');
    m.v += 1;
  },
};

const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };

// The commands without what differs by nature between the sides.
function normalized(commands, dbs) {
  const fix = (v) => {
    if (typeof v === 'string') {
      for (const db of dbs) {
        if (v === db) return '<db>';
        if (v.startsWith(db + '.')) return '<db>' + v.slice(db.length);
      }
      return v;
    }
    if (Array.isArray(v)) return v.map(fix);
    if (v && typeof v === 'object' && v.constructor === Object) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fix(x)]));
    }
    return v;
  };
  return commands.map((c) => {
    const { lsid, $clusterTime, txnNumber, $db, ...rest } = c;
    if ('getMore' in rest) rest.getMore = 0;
    return fix(JSON.parse(JSON.stringify(rest, (k, v) => (typeof v === 'bigint' ? String(v) : v))));
  });
}

// One pass of `kind`: rounds of blocks; with the monitored pair, the commands
// of both sides are compared.
async function pass(pair, kind, pool, rounds, perRound, warmUp, monitored, first, count) {
  const [m, d] = [await loadMongoose(pair, kind, first, count), await loadNode(pair, kind, first, count)];
  const dbs = [pair.conn.db.databaseName, pair.collection.dbName];
  const out = { mongoose: 0, node: 0, rounds: [], commands: '' };
  for (let round = warmUp ? 0 : 1; round <= rounds; round++) {
    const ns = Array.from({ length: perRound }, () => counter++);
    const used = { mongoose: 0, node: 0 };
    const sent = { mongoose: [], node: [] };
    for (let step = 0; step < 2; step++) {
      const side = (round + step) % 2 === 0 ? 'mongoose' : 'node';
      for (const n of ns) {
        if (side === 'mongoose') ops.mongoosePrepare(m, kind, n);
        pair.recorded.length = 0;
        const t = cpu();
        if (side === 'mongoose') await ops.mongoose(pair, m, kind, n, pool);
        else await ops.node(pair, d, kind, n, pool);
        used[side] += cpu() - t;
        if (monitored) sent[side].push(...pair.recorded.splice(0));
        if (side === 'mongoose') await ops.mongooseRestore(pair, m, kind);
        else await ops.nodeRestore(pair, d, kind);
      }
    }
    if (monitored) {
      const [a, b] = [normalized(sent.mongoose, dbs), normalized(sent.node, dbs)];
      if (a.length === 0 || !isDeepStrictEqual(a, b)) {
        throw new Error(`${kind}: Mongoose and the driver sent different commands:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
      }
      const names = a.map((c) => Object.keys(c)[0]);
      out.commands = [...new Set(names)].map((x) => `${x} x${names.filter((y) => y === x).length / perRound}`).join(', ');
    }
    if (round === 0) continue;
    out.mongoose += used.mongoose;
    out.node += used.node;
    out.rounds.push(used.mongoose / used.node);
  }
  out.ops = rounds * perRound;
  return out;
}

async function shapeRows(shape) {
  const large = shape === 'L';
  const docs = env('ODM_CPU_DOCS', quick ? (large ? 2 : 4) : (large ? 100 : 1000));
  const values = Array.from({ length: docs }, () => (shape === 'S' ? small() : article(large ? 2000 : 50)));
  const pool = Array.from({ length: 16 }, (_, i) => comment(i));
  const base = `odm_node_${process.pid}_${shape}`;
  const checked = await sides(base, shape, true);
  const timed = await sides(base, shape, false);
  const stored = (db) => checked.client.db(db).collection(checked.Model.collection.collectionName);
  for (const collection of [stored(`${base}_mongoose`), stored(`${base}_node`)]) {
    await collection.deleteMany({});
    await collection.insertMany(values.map((v) => ({ ...v })));
  }
  const first = values[0]._id;
  const rows = [];
  for (const kind of RUN) {
    if (ARRAYS.has(kind) && shape === 'S') continue;
    const [rounds, perRound] = quick ? [1, 1] : MANY.has(kind) ? [env('ODM_CPU_ROUNDS', large ? 3 : 5), 1] : [env('ODM_CPU_ROUNDS', large ? 5 : 10), env('ODM_CPU_OPS', large ? 4 : 20)];
    let row = await pass(checked, kind, pool, 1, quick ? 1 : 2, false, true, first, docs);
    if (!quick) {
      const commands = row.commands;
      row = await pass(timed, kind, pool, rounds, perRound, true, false, first, docs);
      row.commands = commands;
    }
    // Both sides wrote the same: the first document (which the saves
    // change) whole, every document's counter and version after a batch.
    if (kind !== 'find_by_id' && kind !== 'find_many') {
      const [filter, projection] = kind === 'bulk_save' ? [{}, { counter: 1, __v: 1 }] : [{ _id: first }, {}];
      const [a, b] = await Promise.all([`${base}_mongoose`, `${base}_node`].map((db) =>
        stored(db).find(filter).project(projection).sort({ _id: 1 }).toArray()));
      if (a.length === 0 || !isDeepStrictEqual(a, b)) throw new Error(`${shape} ${kind}: both sides' documents differ`);
    }
    rows.push({ shape, kind, ...row });
  }
  for (const db of [`${base}_mongoose`, `${base}_node`]) await checked.client.db(db).dropDatabase();
  for (const s of [checked, timed]) { await s.conn.close(); await s.client.close(); }
  return rows;
}

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ['S', 'M', 'L'];
const rows = [];
for (const shape of wanted) rows.push(...(await shapeRows(shape)));
console.log('| shape | round trip | Mongoose CPU us | node driver CPU us | ratio | per-round ratios | commands (each side) |');
console.log('|---|---|---:|---:|---:|---|---|');
for (const r of rows) {
  const rr = [...r.rounds].sort((x, y) => x - y);
  console.log(`| ${r.shape} | ${r.kind} | ${(r.mongoose / r.ops).toFixed(1)} | ${(r.node / r.ops).toFixed(1)} | ${(r.mongoose / r.node).toFixed(3)} | ${rr[0].toFixed(2)}..${rr[rr.length - 1].toFixed(2)} | ${r.commands} |`);
}
for (const r of rows) {
  console.log(`NODE ${r.shape} ${r.kind} mongoose_ns ${Math.round((r.mongoose * 1000) / r.ops)}`);
  console.log(`NODE ${r.shape} ${r.kind} node_ns ${Math.round((r.node * 1000) / r.ops)}`);
}
