import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { windowNote } from '../../../src/retrieval/index.js';
import type { NoteReadResult } from '../../../src/retrieval/note-read.js';
import { isVaultgateError } from '../../../src/errors.js';

function read(text: string, firstLine = 1): NoteReadResult {
  return { path: 'a.md', sha256: 'ab'.repeat(32), size: text.length, text, lines: [firstLine, firstLine + text.split('\n').length - 1], heading_path: null, anchor: null, sections: [], frontmatter: null };
}

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(isVaultgateError(e));
    return e.code;
  }
  assert.fail('expected an error');
}

test('windowNote: without max_chars or cursor, or when the text fits, the read is unchanged (no window)', () => {
  const r = read('a\nb\n');
  assert.equal(windowNote(r, {}), r);
  assert.equal(windowNote(r, { maxChars: 100 }), r);
});

test('windowNote: windows end at line ends, carry their lines, and the cursor continues exactly where the last stopped', () => {
  const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1} ${'x'.repeat(i % 7)}`).join('\n') + '\n';
  let cursor: string | undefined;
  let joined = '';
  let lastLine = 0;
  for (let i = 0; i < 100; i++) {
    const w = windowNote(read(text), { maxChars: 200, cursor });
    assert.ok(w.window);
    assert.ok(w.text.length <= 200);
    if (w.window.next_cursor) assert.ok(w.text.endsWith('\n'), 'cut at a line end');
    assert.equal(w.lines[0], lastLine + 1, 'lines follow on');
    assert.equal(w.text.split('\n')[0], text.split('\n')[w.lines[0] - 1]);
    lastLine = w.lines[1];
    joined += w.text;
    cursor = w.window.next_cursor ?? undefined;
    if (!cursor) break;
  }
  assert.equal(joined, text);
  assert.equal(lastLine, 100);
});

test('windowNote: the windows of any text join to the text and never split a surrogate pair (property)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 800 }), fc.integer({ min: 100, max: 300 }), (text, max) => {
      let cursor: string | undefined;
      let joined = '';
      for (let guard = 0; guard < 1000; guard++) {
        const w = windowNote(read(text), { maxChars: max, cursor });
        if (!w.window) return w.text === text && text.length <= max && cursor === undefined;
        if (w.text.length > 0 && /[\ud800-\udbff]$/.test(w.text)) return false;
        joined += w.text;
        cursor = w.window!.next_cursor ?? undefined;
        if (!cursor) break;
      }
      return joined === text;
    }),
    { numRuns: 200 },
  );
});

test('windowNote: a cursor from another version, another heading, or garbage is refused', () => {
  const w = windowNote(read('a\n'.repeat(300)), { maxChars: 100 });
  const cursor = w.window!.next_cursor!;
  const changed = { ...read('a\n'.repeat(300)), sha256: 'cd'.repeat(32) };
  assert.equal(code(() => windowNote(changed, { cursor })), 'STALE_HASH');
  assert.equal(code(() => windowNote(read('a\n'.repeat(300)), { cursor, heading: 'Other' })), 'USAGE');
  assert.equal(code(() => windowNote(read('a\n'.repeat(300)), { cursor: 'nonsense' })), 'USAGE');
  assert.equal(code(() => windowNote(read('a\n'), { cursor: cursor.replace(/^\d+/, '9999') })), 'USAGE');
});
