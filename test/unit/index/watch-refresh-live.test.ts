/**
 * WatchRefresh with the real watcher (chokidar on this machine's inotify): a
 * change made before `settle()` is seen by the next read, which re-stats only
 * the changed paths; folder changes and bursts fall back to a walk and rebuild
 * the watch. Every read is compared with a session that walks.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { IndexSession, WatchRefresh, type RefreshResult } from '../../../src/index/index.js';
import { searchIndex } from '../../../src/retrieval/index.js';
import { dumpIndex } from '../../helpers/index-dump.js';
import { tempDir, writeFiles } from '../../helpers/temp-vault.js';

interface Live {
  root: string;
  watch: WatchRefresh;
  watched: IndexSession;
  walking: IndexSession;
  close(): Promise<void>;
}

function live(files: Record<string, string>, opts: { burstLimit?: number } = {}): Live {
  const base = tempDir();
  const root = path.join(base, 'vault');
  fs.mkdirSync(root);
  writeFiles(root, files);
  const watch = new WatchRefresh(root, { burstLimit: opts.burstLimit });
  const watched = new IndexSession(root, { VAULTGATE_HOME: path.join(base, 'home-watch') }, (h, o) => watch.refresh(h, o));
  const walking = new IndexSession(root, { VAULTGATE_HOME: path.join(base, 'home-walk') });
  return {
    root,
    watch,
    watched,
    walking,
    close: async () => {
      watched.close();
      walking.close();
      await watch.close();
    },
  };
}

/** Wait (polling, no timing assertion) until the watch is live, then take the baseline walk. */
async function untilLive(l: Live): Promise<void> {
  for (let i = 0; i < 500 && l.watch.status().watcher?.state !== 'live'; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(l.watch.status().watcher?.state, 'live', `watcher never became live: ${JSON.stringify(l.watch.status())}`);
  await compare(l, 'baseline');
}

async function compare(l: Live, step: string): Promise<RefreshResult> {
  await l.watch.settle();
  const read = (s: IndexSession) => s.read((h, r) => ({ dump: dumpIndex(h.db), r, hits: searchIndex(h.db, 'alpha beta delta', { limit: 50 }) })).result;
  const w = read(l.watched);
  const f = read(l.walking);
  assert.deepEqual(w.dump, f.dump, `index after ${step}`);
  assert.deepEqual(w.hits, f.hits, `search after ${step}`);
  assert.deepEqual({ ...w.r, took_ms: 0 }, { ...f.r, took_ms: 0 }, `refresh report after ${step}`);
  return w.r;
}

test('watched session: adds, changes, deletes, renames and atomic saves are read without a walk', async () => {
  const l = live({ 'a.md': 'alpha [[b]]', 'b.md': 'beta', 'sub/c.md': 'gamma' });
  try {
    await untilLive(l);
    const walks = l.watch.status().walks;
    fs.writeFileSync(path.join(l.root, 'd.md'), 'delta [[a]]');
    await compare(l, 'add');
    fs.appendFileSync(path.join(l.root, 'sub/c.md'), '\nalpha again');
    await compare(l, 'append');
    fs.rmSync(path.join(l.root, 'b.md'));
    await compare(l, 'delete');
    fs.renameSync(path.join(l.root, 'd.md'), path.join(l.root, 'sub/d2.md'));
    await compare(l, 'rename into a folder');
    fs.writeFileSync(path.join(l.root, 'a.md.tmp'), 'alpha rewritten, beta too');
    fs.renameSync(path.join(l.root, 'a.md.tmp'), path.join(l.root, 'a.md'));
    await compare(l, 'atomic save');
    const status = l.watch.status();
    assert.equal(status.walks, walks, `no walk after the baseline (last: ${status.last_walk_reason})`);
    assert.ok(status.patches >= 5, JSON.stringify(status));
    const quiet = await compare(l, 'quiet read');
    assert.equal(quiet.refreshed, false);
  } finally {
    await l.close();
  }
});

test('watched session: a folder rename walks, rebuilds the watch, and files written into the new folder are then seen', async () => {
  const l = live({ 'a.md': 'alpha [[x]]', 'notes/x.md': 'beta', 'notes/deep/y.md': 'delta [[notes/x]]' });
  try {
    await untilLive(l);
    fs.renameSync(path.join(l.root, 'notes'), path.join(l.root, 'renamed'));
    await compare(l, 'folder rename');
    assert.ok(l.watch.status().watcher!.restarts >= 1, JSON.stringify(l.watch.status()));
    await untilLive(l);
    const walks = l.watch.status().walks;
    fs.writeFileSync(path.join(l.root, 'renamed/deep/z.md'), 'alpha in the renamed folder');
    await compare(l, 'write inside the renamed folder');
    assert.equal(l.watch.status().walks, walks, 'the new folder is under watch: no walk needed');
    fs.mkdirSync(path.join(l.root, 'fresh/inner'), { recursive: true });
    fs.writeFileSync(path.join(l.root, 'fresh/inner/n.md'), 'beta in a new folder');
    await compare(l, 'new folder with a note');
  } finally {
    await l.close();
  }
});

test('watched session: a burst of events above the limit (a possible queue overflow) walks and rebuilds the watch', async () => {
  const l = live({ 'a.md': 'alpha' }, { burstLimit: 5 });
  try {
    await untilLive(l);
    // Written while the event loop is busy: the events arrive as one batch, as after an overflow.
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(l.root, `n${i}.md`), `beta ${i}`);
    await compare(l, 'burst');
    const status = l.watch.status();
    assert.match(status.watcher!.reason ?? status.last_walk_reason ?? '', /batch/, JSON.stringify(status));
    await untilLive(l);
    fs.writeFileSync(path.join(l.root, 'after.md'), 'delta');
    await compare(l, 'after the burst');
  } finally {
    await l.close();
  }
});
