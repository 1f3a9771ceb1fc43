import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { appendToNote, appendToSection, countOccurrences, replaceOnce, replaceSection } from '../../../src/proposals/edits.js';
import { isVaultgateError } from '../../../src/errors.js';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    assert.ok(isVaultgateError(e), String(e));
    return { code: e.code, details: e.details };
  }
  assert.fail('expected a typed error');
};

const note = `---
tags: [x]
---
# Title

Intro.

## Setup

Install it.

### Linux

apt install it

## Notes

Last words.
`;

test('replace: exact text occurring once is replaced; BOM and the rest stay', () => {
  assert.equal(replaceOnce('a.md', '\ufeffone two three', 'two', '2'), '\ufeffone 2 three');
  assert.equal(replaceOnce('a.md', 'a\r\nb\r\n', 'b', ''), 'a\r\n\r\n');
});

test('replace: zero matches is EDIT_NO_MATCH, several is EDIT_AMBIGUOUS with the count (overlaps count)', () => {
  assert.deepEqual(code(() => replaceOnce('a.md', 'abc', 'x', 'y')), { code: 'EDIT_NO_MATCH', details: { count: 0 } });
  assert.deepEqual(code(() => replaceOnce('a.md', 'x x x', 'x', 'y')), { code: 'EDIT_AMBIGUOUS', details: { count: 3 } });
  assert.equal(code(() => replaceOnce('a.md', 'aaa', 'aa', 'b'))!.code, 'EDIT_AMBIGUOUS');
  assert.equal(countOccurrences('aaaa', 'aa'), 3);
});

test('replace: property — a needle occurring once is replaced exactly, and only there', () => {
  fc.assert(
    fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), fc.string(), (pre, needle, post, repl) => {
      const text = pre + needle + post;
      if (countOccurrences(text, needle) !== 1 || text.startsWith('\ufeff')) return;
      assert.equal(replaceOnce('a.md', text, needle, repl), pre + repl + post);
    }),
  );
});

test('section: the body is replaced (subsections included); heading and surrounding blank lines stay', () => {
  const out = replaceSection('a.md', note, 'Setup', 'New setup.\n');
  assert.equal(out, note.replace('Install it.\n\n### Linux\n\napt install it\n', 'New setup.\n'));
  // nested path, a body without a final newline gets one before the next heading
  const nested = replaceSection('a.md', note, 'Title > Setup > Linux', 'brew install it');
  assert.equal(nested, note.replace('apt install it\n', 'brew install it\n'));
  // the last section, at the end of the note
  assert.equal(replaceSection('a.md', note, 'Notes', 'Bye.\n'), note.replace('Last words.\n', 'Bye.\n'));
});

test('section: a heading path matched as Obsidian does (case, punctuation), must name exactly one section', () => {
  assert.equal(replaceSection('a.md', note, 'setup', 'x\n'), replaceSection('a.md', note, 'Setup', 'x\n'));
  assert.equal(code(() => replaceSection('a.md', note, 'Missing', 'x'))!.code, 'HEADING_NOT_FOUND');
  const twice = '# A\n\n## Notes\n\none\n\n# B\n\n## Notes\n\ntwo\n';
  assert.deepEqual(code(() => replaceSection('a.md', twice, 'Notes', 'x')), { code: 'EDIT_AMBIGUOUS', details: { count: 2, lines: [3, 9] } });
  assert.equal(replaceSection('a.md', twice, 'B > Notes', 'three\n'), twice.replace('two\n', 'three\n'));
});

test('section: an empty body or a heading on the last line without a newline', () => {
  assert.equal(replaceSection('a.md', '# A\n\n# B\n', 'A', 'text\n'), '# A\ntext\n\n# B\n');
  assert.equal(replaceSection('a.md', '# A\n\n## B\n', 'A', 'text\n'), '# A\n\ntext\n', 'subsections are part of the body');
  assert.equal(replaceSection('a.md', '# A', 'A', 'text\n'), '# A\ntext\n');
  assert.equal(replaceSection('a.md', '# A\r\n\r\nold\r\n\r\n# B\r\n', 'A', 'new'), '# A\r\n\r\nnew\r\n\r\n# B\r\n');
});

test('append to section: right after its last non-blank line; append to note: at the end on its own line', () => {
  assert.equal(appendToSection('a.md', note, 'Setup', '\nMore.\n'), note.replace('apt install it\n', 'apt install it\n\nMore.\n'));
  assert.equal(appendToSection('a.md', '# A\n- one\n\n# B\n', 'A', '- two'), '# A\n- one\n- two\n\n# B\n');
  assert.equal(appendToNote('abc', 'def\n'), 'abc\ndef\n');
  assert.equal(appendToNote('abc\r\n', 'def'), 'abc\r\ndef');
  assert.equal(appendToNote('', 'x'), 'x');
});
