import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { applyPatch, structuredPatch } from 'diff';
import { changeDiff, lineTokens, MAX_DIFF_EDITS, QUICK_DIFF_EDITS } from '../../../src/proposals/diff.js';
import { ProposalStore } from '../../../src/proposals/index.js';
import type { StoredChange } from '../../../src/proposals/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const write = (old_text: string | null, new_text: string): StoredChange => ({
  path: 'a.md',
  action: 'write',
  to: null,
  base_sha256: old_text === null ? null : sha(old_text),
  old_text,
  new_text,
  new_sha256: sha(new_text),
});

test('store: ids count up per vault, texts come back exactly, and nothing can be deleted or rewritten', () => {
  const { root, home } = tempVault({});
  const store = ProposalStore.open(root, { VAULTGATE_HOME: home });
  try {
    const mk = (title: string) =>
      store.insert({ title, summary: null, agent: 'a', session: null, scenario: null, allow_shrink: false, allow_relink: false, allow_broken_links: false, origin: 'propose', rollback_of: null, changes: [write('\ufeffold\r\n', 'new 🎉\n')] }, 'a');
    const p1 = mk('one');
    const p2 = mk('two');
    assert.deepEqual([p1.id, p2.id], ['p-1', 'p-2']);
    assert.match(p1.operation_id, /^proposal-p-1-[0-9a-f]{8}$/);
    assert.equal(p1.operation_id.slice(-8), p2.operation_id.slice(-8), 'one nonce per store');
    assert.deepEqual(store.get('p-1')!.changes, [write('\ufeffold\r\n', 'new 🎉\n')]);
    assert.throws(() => store.db.prepare('DELETE FROM proposals').run(), /never deleted/);
    assert.throws(() => store.db.prepare('DELETE FROM audit').run(), /append-only/);
    assert.throws(() => store.db.prepare(`UPDATE audit SET actor = 'x'`).run(), /append-only/);
    assert.throws(() => store.db.prepare(`UPDATE changes SET path = 'x'`).run(), /never changed/);
    assert.throws(() => store.db.prepare(`UPDATE texts SET bytes = 0`).run(), /never changed/);
    assert.throws(() => store.db.prepare('DELETE FROM texts').run(), /never deleted/);
    // both proposals share one copy of each text
    assert.equal(store.db.prepare('SELECT count(*) FROM texts').pluck().get(), 2);
    assert.equal(store.transition('p-1', { from: ['applied'], to: 'declined' }), false, 'a transition from the wrong state changes nothing');
    assert.equal(store.get('p-1')!.state, 'pending');
    assert.equal(store.log({ limit: 10 }).total, 2);
  } finally {
    store.close();
  }
});

test('diff: git-style headers for edits, new files, deletes and moves; a missing final newline is marked', () => {
  assert.equal(
    changeDiff(write('a\nb\n', 'a\nc')),
    'diff --git a/a.md b/a.md\n--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n',
  );
  assert.equal(changeDiff(write(null, 'x\n')), 'diff --git a/a.md b/a.md\nnew file\n--- /dev/null\n+++ b/a.md\n@@ -0,0 +1,1 @@\n+x\n');
  assert.equal(
    changeDiff({ path: 'a.md', action: 'delete', to: null, base_sha256: 'x', old_text: 'x\n', new_text: null, new_sha256: null }),
    'diff --git a/a.md b/a.md\ndeleted file\n--- a/a.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n',
  );
  assert.equal(
    changeDiff({ path: 'a.md', action: 'move', to: 'b/a.md', base_sha256: 'x', old_text: 'x', new_text: null, new_sha256: 'x' }),
    'diff --git a/a.md b/b/a.md\nrename from a.md\nrename to b/a.md\n',
  );
});

test('diff: property — the diff applied to the old text gives the new text, also when it falls back to one whole-file hunk', () => {
  const line = fc.stringMatching(/^[a-c ]{0,3}$/);
  const text = fc.array(line, { maxLength: 30 }).chain((ls) => fc.boolean().map((nl) => ls.join('\n') + (nl && ls.length ? '\n' : '')));
  fc.assert(
    fc.property(text, text, (a, b) => {
      if (a === b) return;
      const d = changeDiff(write(a, b)).split('\n').slice(1).join('\n'); // drop the `diff --git` line
      assert.equal(applyPatch(a, d), b);
    }),
    { numRuns: 300 },
  );
  // beyond MAX_DIFF_EDITS the diff is one hunk replacing every line, still exact
  const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const other = Array.from({ length: 3000 }, (_, i) => `other ${i}`).join('\n') + '\n';
  const d = changeDiff(write(big, other));
  assert.match(d, /\n@@ -1,3000 \+1,3000 @@\n/);
  assert.equal(applyPatch(big, d.split('\n').slice(1).join('\n')), other);
});

/**
 * Issue 20 §8: two sides of at most one line each skip jsdiff (for a 200 KB
 * line it split, tokenised and aligned only to answer "replace the line"); the
 * diff is byte for byte what jsdiff's own hunks give, line breaks, CRs and
 * missing final newlines included.
 */
test('diff: property — one-line sides give exactly the hunk jsdiff gives', () => {
  const line = fc.stringMatching(/^[ab\r ]{0,4}$/);
  const side = fc.tuple(line, fc.boolean()).map(([l, nl]) => (nl ? l + '\n' : l));
  fc.assert(
    fc.property(side, side, (a, b) => {
      if (a === b) return;
      const p = structuredPatch('a', 'b', a, b, undefined, undefined, { context: 3 });
      const hunks = p.hunks.map((h) => `@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart},${h.oldLines} +${h.newLines === 0 ? h.newStart - 1 : h.newStart},${h.newLines} @@\n${h.lines.join('\n')}\n`).join('');
      assert.equal(changeDiff(write(a, b)).split('\n').slice(3).join('\n'), hunks, JSON.stringify([a, b]));
    }),
    { numRuns: 500 },
  );
});

/**
 * Issue 20 §8: a diff certain to need more than MAX_DIFF_EDITS line edits (counted
 * from the lines the sides share) skips jsdiff's search, which only gave up after
 * exploring every path to the bound (80 ms a rewritten 2,000-line note). The diff is
 * exactly what it was: jsdiff's hunks, or the whole-file hunk it falls back to.
 */
const sideLines = (t: string, sign: string) => {
  if (t === '') return [];
  const parts = t.split('\n');
  const last = parts.pop()!;
  return [...parts.map((l) => sign + l), ...(last !== '' ? [sign + last, '\\ No newline at end of file'] : [])];
};
const lineCountOf = (t: string) => (t === '' ? 0 : t.split('\n').length - (t.endsWith('\n') ? 1 : 0));
/** The diff's hunks as jsdiff gives them with the full edit bound, or the whole-file hunk it falls back to. */
function referenceHunks(a: string, b: string): string {
  const p = structuredPatch('a', 'b', a, b, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS });
  if (!p) return `@@ -${lineCountOf(a) ? 1 : 0},${lineCountOf(a)} +${lineCountOf(b) ? 1 : 0},${lineCountOf(b)} @@\n${[...sideLines(a, '-'), ...sideLines(b, '+')].join('\n')}\n`;
  return p.hunks.map((h) => `@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart},${h.oldLines} +${h.newLines === 0 ? h.newStart - 1 : h.newStart},${h.newLines} @@\n${h.lines.join('\n')}\n`).join('');
}

/**
 * Issue 20 §8 (round 3): the line diff is tried with QUICK_DIFF_EDITS first, the
 * full bound only when that gives up. Myers' search stops at the first edit count
 * that reaches the end, so a few edits in a long note give jsdiff's own diff — on
 * both sides of the quick bound.
 */
test('diff: property — a few edits in a long note (either side of the quick bound) give exactly the full-bound diff', () => {
  const edits = fc.array(fc.tuple(fc.nat(), fc.constantFrom('change', 'insert', 'delete'), fc.stringMatching(/^[a-d \r]{0,6}$/)), { maxLength: QUICK_DIFF_EDITS + 20 });
  const base = fc.tuple(fc.array(fc.stringMatching(/^[a-f ]{0,8}$/), { minLength: 50, maxLength: 400 }), fc.boolean());
  fc.assert(
    fc.property(base, edits, ([ls, nl], es) => {
      const a = ls.join('\n') + (nl ? '\n' : '');
      const lines = [...ls];
      for (const [at, kind, l] of es) {
        const i = at % (lines.length + 1);
        if (kind === 'insert') lines.splice(i, 0, l);
        else if (kind === 'delete' && lines.length > 0) lines.splice(i % lines.length, 1);
        else if (lines.length > 0) lines[i % lines.length] = l;
      }
      const b = lines.join('\n') + (nl ? '\n' : '');
      if (a === b) return;
      assert.equal(changeDiff(write(a, b)).split('\n').slice(3).join('\n'), referenceHunks(a, b));
    }),
    { numRuns: 150 },
  );
});

test('diff: property — lineTokens cuts a text into the lines jsdiff tokenises (each with its \\n or \\r\\n)', () => {
  const jsdiffTokens = (text: string) => {
    const parts = text.split(/(\n|\r\n)/);
    if (!parts[parts.length - 1]) parts.pop();
    const out: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      if (i % 2) out[out.length - 1] = out[out.length - 1]! + parts[i]!;
      else out.push(parts[i]!);
    }
    return out;
  };
  fc.assert(fc.property(fc.stringMatching(/^[ab\r\n]{0,30}$/), (t) => assert.deepEqual(lineTokens(t), jsdiffTokens(t))), { numRuns: 1000 });
});

test('diff: property — near and over the edit bound, the same diff as jsdiff with its fallback', () => {
  const sideLines = (t: string, sign: string) => {
    if (t === '') return [];
    const parts = t.split('\n');
    const last = parts.pop()!;
    return [...parts.map((l) => sign + l), ...(last !== '' ? [sign + last, '\\ No newline at end of file'] : [])];
  };
  const count = (t: string) => (t === '' ? 0 : t.split('\n').length - (t.endsWith('\n') ? 1 : 0));
  let fellBack = 0;
  const reference = (a: string, b: string): string => {
    const p = structuredPatch('a', 'b', a, b, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS });
    if (!p) {
      fellBack++;
      return `@@ -${count(a) ? 1 : 0},${count(a)} +${count(b) ? 1 : 0},${count(b)} @@\n${[...sideLines(a, '-'), ...sideLines(b, '+')].join('\n')}\n`;
    }
    return p.hunks.map((h) => `@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart},${h.oldLines} +${h.newLines === 0 ? h.newStart - 1 : h.newStart},${h.newLines} @@\n${h.lines.join('\n')}\n`).join('');
  };
  // how many different lines a case draws from: a few (a short diff) to thousands (far over the bound)
  const text = (kinds: number) =>
    fc.integer({ min: 300, max: 900 }).chain((n) =>
      fc.tuple(fc.array(fc.integer({ min: 0, max: kinds }).map((k) => (k === 0 ? '' : k === 1 ? 'x\r' : `l${k}`)), { minLength: n, maxLength: n }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl ? '\n' : '')),
    );
  const pair = fc.integer({ min: 2, max: 3000 }).chain((kinds) => fc.tuple(text(kinds), text(kinds)));
  fc.assert(
    fc.property(pair, ([a, b]) => {
      if (a === b) return;
      assert.equal(changeDiff(write(a, b)).split('\n').slice(3).join('\n'), reference(a, b));
    }),
    { numRuns: 40 },
  );
  assert.ok(fellBack > 0, 'some cases are over the bound');
  // two rewritten notes of 2,000 lines share no line: far over the bound, one whole-file hunk
  const big = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const other = Array.from({ length: 2000 }, (_, i) => `other ${i}`).join('\n') + '\n';
  assert.equal(changeDiff(write(big, other)).split('\n').slice(3).join('\n'), reference(big, other));
});

/** The hunks are built from jsdiff's array diff of the lines: exactly structuredPatch's, on short texts of every shape (context overlaps, empty sides, no final newline, \r). */
test('diff: property — short texts give exactly the hunks structuredPatch gives', () => {
  const text = fc.tuple(fc.array(fc.stringMatching(/^[ab\r]{0,2}$/), { maxLength: 14 }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl && ls.length ? '\n' : ''));
  fc.assert(
    fc.property(text, text, (a, b) => {
      if (a === b) return;
      const oneLine = (t: string) => t.indexOf('\n') === -1 || t.indexOf('\n') === t.length - 1;
      if (oneLine(a) && oneLine(b)) return; // the one-line shortcut, tested above
      assert.equal(changeDiff(write(a, b)).split('\n').slice(3).join('\n'), referenceHunks(a, b));
    }),
    { numRuns: 2000 },
  );
});
