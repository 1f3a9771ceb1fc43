/**
 * WatchRefresh against a full walk: a session that refreshes only the paths a
 * change feed reports must hold exactly the index a walking session holds,
 * refresh for refresh. The feed here is scripted: it reports what an inotify
 * folder watch reports (the entry names in the folder where something
 * happened, never the files under a renamed folder), so the tests check the
 * refresher's own reasoning; test/e2e/watch-freshness.test.ts runs the real
 * watcher.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildContext } from '../../../src/context/index.js';
import { IndexSession, WatchRefresh, type RefreshResult } from '../../../src/index/index.js';
import { searchIndex } from '../../../src/retrieval/index.js';
import type { ChangeFeed, WatchDelta, WatchStatus } from '../../../src/vault/index.js';
import { dumpIndex } from '../../helpers/index-dump.js';
import { tempDir, writeFiles } from '../../helpers/temp-vault.js';

/** A change feed the test drives: `report` what the kernel would say, or `miss` to make it ask for a walk. */
class ScriptedFeed implements ChangeFeed {
  pending = new Set<string>();
  walkReason: string | null = 'starting';
  restarts: string[] = [];
  report(...paths: string[]): void {
    for (const p of paths) this.pending.add(p);
  }
  miss(reason: string): void {
    this.walkReason = reason;
  }
  take(): WatchDelta {
    const paths = this.pending;
    this.pending = new Set();
    const walk = this.walkReason;
    this.walkReason = null;
    return walk ? { walk } : { walk: null, paths };
  }
  restart(reason: string): void {
    this.restarts.push(reason);
    // A rebuilt watch vouches for nothing until its baseline walk.
    this.walkReason = `restarted: ${reason}`;
  }
  settle(): Promise<void> {
    return Promise.resolve();
  }
  status(): WatchStatus {
    return { state: 'live', reason: null, restarts: this.restarts.length, events: 0, folders: 0, last_error: null };
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface Pair {
  root: string;
  feed: ScriptedFeed;
  watched: IndexSession;
  walking: IndexSession;
  watch: WatchRefresh;
  close(): void;
}

function pair(files: Record<string, string> = {}): Pair {
  const base = tempDir();
  const root = path.join(base, 'vault');
  fs.mkdirSync(root);
  writeFiles(root, files);
  const feed = new ScriptedFeed();
  const watch = new WatchRefresh(root, { feed });
  const watched = new IndexSession(root, { VAULTGATE_HOME: path.join(base, 'home-watch') }, (h, o) => watch.refresh(h, o));
  const walking = new IndexSession(root, { VAULTGATE_HOME: path.join(base, 'home-walk') });
  return { root, feed, watched, walking, watch, close: () => (watched.close(), walking.close()) };
}

const QUERIES = ['alpha', 'beta gamma', 'delta', 'note'];

/** Both sessions refresh; their indexes, refresh reports and answers must be equal. Returns the watched refresh. */
function assertSame(p: Pair, step: string, opts: { report?: boolean } = {}): RefreshResult {
  const w = p.watched.read((h, r) => ({ dump: dumpIndex(h.db), r, hits: QUERIES.map((q) => searchIndex(h.db, q, { limit: 20 })) }));
  const f = p.walking.read((h, r) => ({ dump: dumpIndex(h.db), r, hits: QUERIES.map((q) => searchIndex(h.db, q, { limit: 20 })) }));
  const report = ({ took_ms: _t, ...r }: RefreshResult) => r;
  assert.deepEqual(w.result.dump, f.result.dump, `index after ${step}`);
  if (opts.report !== false) assert.deepEqual(report(w.result.r), report(f.result.r), `refresh report after ${step}`);
  assert.deepEqual(w.result.hits, f.result.hits, `search after ${step}`);
  return w.result.r;
}

test('watch refresh: a reported add, change and delete refresh only those paths, and equal a full walk', () => {
  const p = pair({ 'a.md': '# A\nalpha [[b]]', 'b.md': 'beta', 'sub/c.md': 'gamma [[a#A]]' });
  try {
    assertSame(p, 'first read');
    fs.writeFileSync(path.join(p.root, 'd.md'), 'delta [[a]] [[missing]]');
    p.feed.report('d.md');
    assertSame(p, 'add');
    fs.appendFileSync(path.join(p.root, 'sub/c.md'), '\nmore gamma and delta');
    p.feed.report('sub/c.md');
    assertSame(p, 'change');
    fs.rmSync(path.join(p.root, 'b.md'));
    p.feed.report('b.md');
    assertSame(p, 'delete');
    fs.renameSync(path.join(p.root, 'd.md'), path.join(p.root, 'sub/e.md'));
    p.feed.report('d.md', 'sub/e.md');
    assertSame(p, 'rename across folders');
    const status = p.watch.status();
    assert.deepEqual([status.walks, status.patches], [1, 4], 'one walk (the first read), then only patches');
  } finally {
    p.close();
  }
});

test('watch refresh: nothing reported and nothing changed is answered without a walk', () => {
  const p = pair({ 'a.md': 'alpha' });
  try {
    assertSame(p, 'first read');
    const r = assertSame(p, 'quiet read');
    assert.equal(r.refreshed, false);
    assert.equal(p.watch.status().unchanged, 1);
  } finally {
    p.close();
  }
});

test('watch refresh: an atomic save (temp file, then rename over the note) is seen', () => {
  const p = pair({ 'a.md': 'alpha', 'b.md': 'beta' });
  try {
    assertSame(p, 'first read');
    fs.writeFileSync(path.join(p.root, 'a.md.tmp-123'), 'alpha rewritten with delta');
    fs.renameSync(path.join(p.root, 'a.md.tmp-123'), path.join(p.root, 'a.md'));
    p.feed.report('a.md.tmp-123', 'a.md');
    assertSame(p, 'atomic save');
    assert.equal(p.watch.status().walks, 1);
  } finally {
    p.close();
  }
});

test('watch refresh: a folder rename, reported only by the folder names, walks and rebuilds the watch', () => {
  const p = pair({ 'a.md': 'alpha [[x]]', 'notes/x.md': 'delta', 'notes/deep/y.md': 'gamma [[notes/x]]' });
  try {
    assertSame(p, 'first read');
    fs.renameSync(path.join(p.root, 'notes'), path.join(p.root, 'renamed'));
    p.feed.report('notes', 'renamed');
    assertSame(p, 'folder rename');
    assert.equal(p.feed.restarts.length, 1, 'the watch is rebuilt');
    fs.rmSync(path.join(p.root, 'renamed'), { recursive: true });
    p.feed.report('renamed');
    assertSame(p, 'folder delete');
    // A file taking the name of a folder that held notes is a folder change too.
    fs.mkdirSync(path.join(p.root, 'k'));
    fs.writeFileSync(path.join(p.root, 'k/z.md'), 'beta');
    p.feed.report('k');
    assertSame(p, 'new folder');
    fs.rmSync(path.join(p.root, 'k'), { recursive: true });
    fs.writeFileSync(path.join(p.root, 'k'), 'now a file');
    p.feed.report('k');
    assertSame(p, 'folder replaced by a file');
  } finally {
    p.close();
  }
});

test('watch refresh: when the feed may have missed events (overflow), the read walks', () => {
  const p = pair({ 'a.md': 'alpha', 'b.md': 'beta' });
  try {
    assertSame(p, 'first read');
    // Changes the feed never names: an overflowed kernel queue.
    fs.writeFileSync(path.join(p.root, 'c.md'), 'gamma');
    fs.rmSync(path.join(p.root, 'a.md'));
    p.feed.miss('overflow');
    assertSame(p, 'missed events');
    assert.equal(p.watch.status().last_walk_reason, 'overflow');
  } finally {
    p.close();
  }
});

test('watch refresh: symlinks and special files keep the walk\'s warnings, in its order', () => {
  const p = pair({ 'a.md': 'alpha', 'z.md': 'beta' });
  try {
    assertSame(p, 'first read');
    fs.symlinkSync(path.join(p.root, 'a.md'), path.join(p.root, 'link.md'));
    fs.symlinkSync(path.join(p.root, 'z.md'), path.join(p.root, 'b-link.md'));
    p.feed.report('link.md', 'b-link.md');
    const r = assertSame(p, 'symlinks added');
    assert.deepEqual(r.warnings.map((w) => w.path), ['b-link.md', 'link.md']);
    fs.rmSync(path.join(p.root, 'link.md'));
    fs.writeFileSync(path.join(p.root, 'link.md'), 'a real note now: delta');
    p.feed.report('link.md');
    assertSame(p, 'symlink replaced by a note');
  } finally {
    p.close();
  }
});

test('watch refresh: another process refreshing in between does not fool the patch', () => {
  const p = pair({ 'a.md': 'alpha', 'b.md': 'beta' });
  try {
    assertSame(p, 'first read');
    fs.writeFileSync(path.join(p.root, 'c.md'), 'gamma');
    // Another process (here: a walking session on the same index file) refreshes first.
    const other = new IndexSession(p.root, { VAULTGATE_HOME: path.join(path.dirname(p.root), 'home-watch') });
    other.read(() => null);
    other.close();
    p.feed.report('c.md');
    // The reports differ (the other process did the work), the index and the answers may not.
    assertSame(p, 'change already indexed by another process', { report: false });
  } finally {
    p.close();
  }
});

test('watch refresh: after refreshes of given paths, a walking process finds the index already up to date', () => {
  const p = pair({ 'a.md': 'alpha [[b]]', 'b.md': 'beta' });
  try {
    assertSame(p, 'first read');
    fs.writeFileSync(path.join(p.root, 'c.md'), 'gamma [[a]]');
    fs.rmSync(path.join(p.root, 'b.md'));
    p.feed.report('c.md', 'b.md');
    assertSame(p, 'add and delete');
    assert.equal(p.watch.status().patches, 1);
    // A one-shot CLI process on the same index file: it walks, compares every row once (the digest is a token now), writes nothing.
    const other = new IndexSession(p.root, { VAULTGATE_HOME: path.join(path.dirname(p.root), 'home-watch') });
    const { refresh, result } = other.read((h) => dumpIndex(h.db));
    other.close();
    assert.deepEqual([refresh.refreshed, refresh.files, refresh.notes, refresh.added, refresh.deleted], [false, 2, 2, 0, 0]);
    assert.deepEqual(result, p.walking.read((h) => dumpIndex(h.db)).result);
    // And the watched session notices the other refresh and walks once.
    assertSame(p, 'after the other process');
    assert.equal(p.watch.status().last_walk_reason, 'another process refreshed the index');
  } finally {
    p.close();
  }
});

test('watch refresh: an index reopened (rebuilt) is walked again', () => {
  const p = pair({ 'a.md': 'alpha' });
  try {
    assertSame(p, 'first read');
    p.watched.read(() => null, { rebuild: true });
    assert.equal(p.watch.status().last_walk_reason, 'the index was reopened');
  } finally {
    p.close();
  }
});

test('watch refresh: a vault config edit (exclusions) walks', () => {
  const p = pair({ 'a.md': 'alpha', 'drafts/b.md': 'beta' });
  try {
    assertSame(p, 'first read');
    writeFiles(p.root, { '.vaultgate/config.yaml': 'index:\n  exclude: ["drafts/**"]\n' });
    assertSame(p, 'exclusion added');
    assert.equal(p.watch.status().last_walk_reason, 'the vault config changed');
  } finally {
    p.close();
  }
});

test('watch refresh: context\'s hash check names a note changed under it, and the retry re-stats it before the watcher reports it', () => {
  const p = pair({ 'a.md': '# Robber\nThe robber moves on a seven.', 'b.md': 'beta' });
  try {
    assertSame(p, 'first read');
    const packet = buildContext(
      p.root,
      {},
      {
        question: 'robber seven',
        // A writer changes the note between the selection and the re-read; its event has not arrived (the feed stays silent).
        beforeVerify: (attempt) => {
          if (attempt === 1) fs.writeFileSync(path.join(p.root, 'a.md'), '# Robber\nThe robber moves on a seven, and steals a card.');
        },
      },
      p.watched,
    );
    assert.equal(packet.attempts, 2);
    assert.match(packet.evidence[0]!.text, /steals a card/);
  } finally {
    p.close();
  }
});

// What an inotify watch on every folder reports for each operation: the names
// in the folder where it happened (a new folder's files are not reported: only
// the folder is).
type Op =
  | { op: 'write'; file: string; text: string }
  | { op: 'append'; file: string; text: string }
  | { op: 'delete'; file: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'atomic'; file: string; text: string }
  | { op: 'renameFolder'; from: string; to: string }
  | { op: 'deleteFolder'; folder: string }
  | { op: 'symlink'; file: string };

const FOLDERS = ['', 'a', 'a/b', 'c'];
const NAMES = ['x.md', 'y.md', 'Zeta.md', 'img.png'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'note', '[[x]]', '[[y#Head]]', '[[a/b/Zeta]]', '# Head', '![[img.png]]'];

const fileArb = fc.tuple(fc.constantFrom(...FOLDERS), fc.constantFrom(...NAMES)).map(([d, n]) => (d ? `${d}/${n}` : n));
const textArb = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('write' as const), file: fileArb, text: textArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('append' as const), file: fileArb, text: textArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), file: fileArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rename' as const), from: fileArb, to: fileArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('atomic' as const), file: fileArb, text: textArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('renameFolder' as const), from: fc.constantFrom('a', 'a/b', 'c'), to: fc.constantFrom('a', 'c', 'd', 'a/e') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteFolder' as const), folder: fc.constantFrom('a', 'a/b', 'c') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('symlink' as const), file: fileArb }) },
);

/** Apply an operation; returns what the folder watches would report (or null when it could not be applied). */
function perform(root: string, o: Op): string[] | null {
  const abs = (p: string) => path.join(root, p);
  const exists = (p: string) => fs.existsSync(abs(p)) || fs.lstatSync(abs(p), { throwIfNoEntry: false }) !== undefined;
  /** Create the missing folders of a file's path; the topmost new one is what its parent's watch reports. */
  const mkdirs = (file: string): string[] => {
    const parts = file.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      const st = fs.lstatSync(abs(d), { throwIfNoEntry: false });
      if (st && !st.isDirectory()) return ['!'];
      if (!st) {
        fs.mkdirSync(abs(parts.join('/')), { recursive: true });
        return [d];
      }
    }
    return [];
  };
  const isFile = (p: string) => fs.lstatSync(abs(p), { throwIfNoEntry: false })?.isFile() === true;
  switch (o.op) {
    case 'write':
    case 'atomic': {
      const made = mkdirs(o.file);
      if (made[0] === '!' || fs.lstatSync(abs(o.file), { throwIfNoEntry: false })?.isDirectory()) return null;
      if (o.op === 'atomic') {
        fs.writeFileSync(abs(`${o.file}.tmp`), o.text);
        fs.renameSync(abs(`${o.file}.tmp`), abs(o.file));
        return [...made, `${o.file}.tmp`, o.file];
      }
      fs.writeFileSync(abs(o.file), o.text);
      return [...made, o.file];
    }
    case 'append':
      if (!isFile(o.file)) return null;
      fs.appendFileSync(abs(o.file), `\n${o.text}`);
      return [o.file];
    case 'delete':
      if (!exists(o.file) || fs.lstatSync(abs(o.file)).isDirectory()) return null;
      fs.rmSync(abs(o.file));
      return [o.file];
    case 'rename': {
      if (!isFile(o.from) || o.from === o.to) return null;
      const made = mkdirs(o.to);
      if (made[0] === '!' || fs.lstatSync(abs(o.to), { throwIfNoEntry: false })?.isDirectory()) return null;
      fs.renameSync(abs(o.from), abs(o.to));
      return [...made, o.from, o.to];
    }
    case 'renameFolder': {
      const st = fs.lstatSync(abs(o.from), { throwIfNoEntry: false });
      if (!st?.isDirectory() || exists(o.to) || `${o.to}/`.startsWith(`${o.from}/`)) return null;
      const made = mkdirs(`${o.to}/_`);
      if (made[0] === '!') return null;
      fs.renameSync(abs(o.from), abs(o.to));
      return [...made, o.from, o.to];
    }
    case 'deleteFolder':
      if (!fs.lstatSync(abs(o.folder), { throwIfNoEntry: false })?.isDirectory()) return null;
      fs.rmSync(abs(o.folder), { recursive: true });
      return [o.folder];
    case 'symlink': {
      const made = mkdirs(o.file);
      if (made[0] === '!' || exists(o.file)) return null;
      fs.symlinkSync('/nonexistent-target', abs(o.file));
      return [...made, o.file];
    }
  }
}

test('watch refresh: any sequence of file and folder operations gives the index a full walk gives (fast-check)', () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 1, maxLength: 12 }), (ops) => {
      const p = pair({ 'x.md': 'alpha [[y]]', 'a/y.md': '# Head\nbeta [[x]]', 'a/b/Zeta.md': 'gamma ![[img.png]]', 'c/img.png': 'png' });
      try {
        assertSame(p, 'first read');
        for (const [i, o] of ops.entries()) {
          const reported = perform(p.root, o);
          if (!reported) continue;
          p.feed.report(...reported);
          assertSame(p, `step ${i}: ${JSON.stringify(o)}`);
        }
      } finally {
        p.close();
      }
    }),
    { numRuns: 40 },
  );
});
