import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openIndex, type Db } from '../../../src/index/db.js';
import { withFreshIndex } from '../../../src/index/fresh-index.js';
import { coreSpareNow, DEFAULT_SHARD_PARAMS, mergeTop, offerReadPool, ReadPool } from '../../../src/index/read-pool.js';
import { searchIndex, type SearchOptions } from '../../../src/retrieval/search.js';
import { tempVault } from '../../helpers/temp-vault.js';

// The compiled worker: a worker thread cannot run the TypeScript source (`npm test` builds first).
const WORKER = new URL('../../../dist/index/read-worker.js', import.meta.url);
const built = fs.existsSync(fileURLToPath(WORKER));
const skip = built ? false : 'skipped: dist/ is not built (run `npm run build`)';

const WORDS = ['budget', 'meeting', 'review', 'project', 'roadmap', 'release', 'design', 'hiring', 'travel', 'invoice'];

/** 150 notes of three sections each, the same few words in different mixes and amounts, some tagged and linked. */
function vaultFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 150; i++) {
    const w = (k: number) => WORDS[(i * 7 + k * 3) % WORDS.length]!;
    const body = (k: number) => Array.from({ length: 1 + ((i + k) % 4) }, (_, j) => `${w(k)} ${w(k + j)} notes for week ${j}.`).join(' ');
    files[`${i % 3 === 0 ? 'Work' : 'Home'}/Note ${i}.md`] = [
      i % 5 === 0 ? '---\ntags: [ops]\n---' : '',
      `# Note ${i} ${w(0)}`,
      body(0),
      `## ${w(1)} plan`,
      `${body(1)} See [[Note ${(i + 1) % 150}|the ${w(2)} page]].`,
      `## Later`,
      body(2),
    ].join('\n');
  }
  return files;
}

const QUERIES: [string, SearchOptions][] = [
  ['budget meeting review project', {}],
  ['budget', { limit: 30 }],
  ['roadmap release -hiring', {}],
  ['travel invoice', { pathPrefix: 'Work/' }],
  ['design review', { tag: 'ops' }],
  ['meeting', { allSections: true, limit: 15 }],
];

function answers(db: Db) {
  return QUERIES.map(([q, o]) => searchIndex(db, q, o));
}

test('read pool: sharded rankings equal one-thread rankings (hits, scores, totals)', { skip }, () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  withFreshIndex(root, env, () => null);
  const handle = openIndex(root, env);
  try {
    const alone = answers(handle.db);
    assert.ok(alone[0]!.total > 50, 'the common words match most notes');
    for (const workers of [1, 2]) {
      const pool = ReadPool.open(handle.file, workers, WORKER)!;
      try {
        // Each worker answers its shard, then this thread may take some back: both merge the same.
        for (const takeBack of [false, true]) {
          offerReadPool(handle.db, () => pool, { minSections: 0, spareCore: true, takeBack });
          assert.deepEqual(answers(handle.db), alone, `${workers} worker(s), take back: ${takeBack}`);
        }
        assert.equal(pool.workers, workers, 'every worker answered');
      } finally {
        pool.close();
      }
    }
  } finally {
    handle.db.close();
  }
});

test('read pool: a shard read from another state of the index, or not read at all, is answered by the calling thread', { skip }, () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  withFreshIndex(root, env, () => null);
  const handle = openIndex(root, env);
  // A copy of the index as it is now, then the vault changes: the copy is another state of it.
  const stale = `${handle.file}.stale`;
  handle.db.pragma('wal_checkpoint(TRUNCATE)');
  fs.copyFileSync(handle.file, stale);
  handle.db.close();
  fs.writeFileSync(`${root}/Work/Fresh.md`, '# Fresh\nbudget meeting review project budget meeting review project\n');
  withFreshIndex(root, env, () => null);
  const db = openIndex(root, env).db;
  // The workers must answer (not be overtaken by this thread) for their answers to be checked.
  const shard = { minSections: 0, spareCore: true, takeBack: false };
  try {
    const alone = answers(db);
    const stalePool = ReadPool.open(stale, 1, WORKER)!;
    offerReadPool(db, () => stalePool, shard);
    assert.deepEqual(answers(db), alone, 'the stale shard was answered again here');
    assert.equal(stalePool.workers, 1, 'a stale answer is not a failure');
    stalePool.close();
    const missing = ReadPool.open(`${handle.file}.missing`, 1, WORKER)!;
    offerReadPool(db, () => missing, shard);
    assert.deepEqual(answers(db), alone, 'the failed shard was answered here');
    assert.equal(missing.workers, 0, 'a worker that cannot read is dropped');
    assert.deepEqual(answers(db), alone, 'and the pool keeps answering on this thread');
    missing.close();
  } finally {
    db.close();
  }
});

test('read pool: the calling thread takes back a shard its worker has not started, instead of waiting for it', { skip }, () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  withFreshIndex(root, env, () => null);
  const db = openIndex(root, env).db;
  // A worker that never takes a job, like one starved of CPU by other processes.
  const idle = ReadPool.open('unused', 1, new URL('data:text/javascript,export {}'))!;
  try {
    const alone = answers(db);
    offerReadPool(db, () => idle, { ...DEFAULT_SHARD_PARAMS, minSections: 0, spareCore: true });
    assert.deepEqual(answers(db), alone);
    // Had this thread waited, the stall timer would have dropped the worker.
    assert.equal(idle.workers, 1, 'nothing waited for the idle worker');
  } finally {
    idle.close();
    db.close();
  }
});

test('read pool: no thread is started for a small index, or while the machine has no spare core', () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  withFreshIndex(root, env, () => null);
  const db = openIndex(root, env).db;
  let starts = 0;
  const start = () => {
    starts++;
    return null;
  };
  try {
    offerReadPool(db, start, { ...DEFAULT_SHARD_PARAMS, spareCore: true });
    answers(db);
    assert.equal(starts, 0, 'the index is below minSections');
    offerReadPool(db, start, { ...DEFAULT_SHARD_PARAMS, minSections: 0, spareCore: false });
    answers(db);
    assert.equal(starts, 0, 'no spare core');
    offerReadPool(db, start, { ...DEFAULT_SHARD_PARAMS, minSections: 0, spareCore: true });
    answers(db);
    answers(db);
    assert.equal(starts, 1, 'started on the first query that gains from it, once');
  } finally {
    db.close();
  }
});

test('read pool: a core is spare when the runnable threads of other processes leave one beside this thread', () => {
  const one = () => 1;
  assert.equal(coreSpareNow(2, () => '0.52 0.58 0.59 1/84 6821\n', one), true, 'only this thread runs');
  assert.equal(coreSpareNow(2, () => '1.52 1.58 1.59 2/84 6821\n', one), false, 'another process has the other core');
  assert.equal(coreSpareNow(2, () => '1.52 1.58 1.59 3/84 6821\n', () => 2), false, 'one of ours and one of another process');
  assert.equal(coreSpareNow(2, () => '1.52 1.58 1.59 2/84 6821\n', () => 2), true, 'both runnable threads are ours (a V8 helper)');
  assert.equal(coreSpareNow(4, () => '2.10 2.00 2.00 3/120 901\n', one), true);
  assert.equal(coreSpareNow(4, () => '4.10 4.00 4.00 4/120 901\n', one), false);
  // Without /proc: the 1-minute load average decides (whatever it is here, a boolean).
  assert.equal(typeof coreSpareNow(2, () => null, one), 'boolean');
});

test('read pool: a thread of ours runnable as the system count is read is ours, counted before or after it', () => {
  const counts = (...n: number[]) => () => n.shift() ?? 1;
  const load = (running: number) => () => `1.00 1.00 1.00 ${running}/84 6821\n`;
  // A V8 helper of ours runnable when the count was read, asleep by the time ours are counted after: it was counted before.
  assert.equal(coreSpareNow(2, load(2), counts(2, 1)), true);
  // Asleep before, runnable as the count was read and still after: counted after.
  assert.equal(coreSpareNow(2, load(2), counts(1, 2)), true);
  // Another process's thread is never ours: ours were one before and after.
  assert.equal(coreSpareNow(2, load(2), counts(1, 1)), false);
  assert.equal(coreSpareNow(2, load(3), counts(2, 2)), false);
});

test('read pool: a session remembers each term\'s row count for one state of the index only', () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  withFreshIndex(root, env, () => null);
  const db = openIndex(root, env).db;
  try {
    offerReadPool(db, () => null);
    const query = (d: Db) => searchIndex(d, 'budget meeting review project', {});
    query(db);
    // Another process changes the index: many more notes hold one of the words, so its idf (and the coverage ranking) moves.
    for (let i = 0; i < 60; i++) fs.writeFileSync(`${root}/Home/Budget ${i}.md`, `# Budget ${i}\nbudget budget\n`);
    withFreshIndex(root, env, () => null);
    const fresh = openIndex(root, env).db;
    try {
      assert.deepEqual(query(db), query(fresh), 'the remembered counts were dropped with the old state');
    } finally {
      fresh.close();
    }
  } finally {
    db.close();
  }
});

test('read pool: mergeTop keeps the best k by score, then rowid, as the SQL orders them', () => {
  const a: [number, number][] = [
    [5, 9],
    [1, 4],
  ];
  const b: [number, number][] = [
    [3, 9],
    [2, 4],
    [7, 1],
  ];
  assert.deepEqual(mergeTop([a, b], 3), [
    [3, 9],
    [5, 9],
    [1, 4],
  ]);
  assert.equal(mergeTop([a], 1), a, 'one shard is its own answer');
});
