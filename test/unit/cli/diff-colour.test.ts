import assert from 'node:assert/strict';
import { test } from 'node:test';
import { colourDiffs, wantsColour } from '../../../src/cli/diff-colour.js';

const DIFF = ['p-1: pending', 'ok    base', '', 'diff --git a/P.md b/P.md', '--- a/P.md', '+++ b/P.md', '@@ -1,2 +1,2 @@', ' | Plan | Storage |', '-| Plus | 10 GB |', '+| Plus | 100 GB |', ''].join('\n');

test('colourDiffs: git’s colours, the changed word in reverse video, the text around the diff untouched', () => {
  const out = colourDiffs(DIFF).split('\n');
  assert.deepEqual(out.slice(0, 3), ['p-1: pending', 'ok    base', '']);
  assert.equal(out[3], '\x1b[1mdiff --git a/P.md b/P.md\x1b[m');
  assert.equal(out[6], '\x1b[36m@@ -1,2 +1,2 @@\x1b[m');
  assert.equal(out[7], ' | Plan | Storage |');
  assert.equal(out[8], '\x1b[31m-| Plus | \x1b[7m10\x1b[27m GB |\x1b[m');
  assert.equal(out[9], '\x1b[32m+| Plus | \x1b[7m100\x1b[27m GB |\x1b[m');
  // without the escapes it is the same text
  assert.equal(colourDiffs(DIFF).replace(/\x1b\[[0-9;]*m/g, ''), DIFF);
  // a `plan` diff has no `diff --git` line
  assert.match(colourDiffs('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b'), /\x1b\[31m-a\x1b\[m\n\x1b\[32m\+b\x1b\[m$/);
  // a note that merely holds diff-like lines is not a diff
  assert.equal(colourDiffs('- a list item\n+ not a diff'), '- a list item\n+ not a diff');
});

test('wantsColour: a terminal, unless NO_COLOR or TERM=dumb', () => {
  assert.equal(wantsColour(true, {}), true);
  assert.equal(wantsColour(false, {}), false);
  assert.equal(wantsColour(true, { NO_COLOR: '1' }), false);
  assert.equal(wantsColour(true, { NO_COLOR: '' }), true, 'an empty NO_COLOR does not count (no-color.org)');
  assert.equal(wantsColour(true, { TERM: 'dumb' }), false);
});
