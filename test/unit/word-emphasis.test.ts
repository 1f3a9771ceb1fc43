import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { diffEmphasis } from '../../src/word-emphasis.js';

/** The emphasised text of each line, `[…]` around each range (null: none). */
function marked(lines: string[]): Array<string | null> {
  return diffEmphasis(lines).map((r, i) => {
    if (!r) return null;
    const body = lines[i]!.slice(1);
    let out = '';
    let at = 0;
    for (const [s, e] of r) {
      out += body.slice(at, s) + '[' + body.slice(s, e) + ']';
      at = e;
    }
    return out + body.slice(at);
  });
}

const hunk = (...lines: string[]) => ['diff --git a/n.md b/n.md', '--- a/n.md', '+++ b/n.md', '@@ -1,3 +1,3 @@', ...lines];

test('word emphasis: a one-cell change in a table row is the cell', () => {
  const m = marked(hunk(' | Plan | Storage |', '-| Plus | 10 GB | $8 |', '+| Plus | 100 GB | $8 |'));
  assert.deepEqual(m.slice(4), [null, '| Plus | [10] GB | $8 |', '| Plus | [100] GB | $8 |']);
});

test('word emphasis: words inserted, removed and replaced; runs paired line by line', () => {
  const m = marked(hunk('-Feed it every 12 hours.', '-Keep it warm.', '+Feed it every 24 hours, at room temperature.', '+Keep it warm.'));
  assert.deepEqual(m.slice(4), ['Feed it every [12] hours.', null, 'Feed it every [24] hours[, at room temperature].', null]);
  // only an insertion: nothing on the removed side
  assert.deepEqual(marked(hunk('-a b', '+a new b')).slice(4), [null, 'a [new ]b']);
});

test('word emphasis: none when runs differ in length, a whole line changed, outside hunks, or a line is too long', () => {
  assert.deepEqual(marked(hunk('-one two', '+one three', '+four')).slice(4), [null, null, null], 'unequal runs are not guessed');
  assert.deepEqual(marked(hunk('-alpha', '+omega')).slice(4), [null, null], 'all changed: nothing to point at');
  assert.deepEqual(marked(['--- a/x', '+++ b/x']), [null, null], 'file headers are not a change');
  const long = 'word '.repeat(300);
  assert.deepEqual(marked(hunk(`-${long}a`, `+${long}b`)).slice(4), [null, null], 'over the line limit: the whole line is the change');
  // `\ No newline at end of file` between the runs does not break the pair
  assert.deepEqual(marked(hunk('-last one', '\\ No newline at end of file', '+last two', '\\ No newline at end of file')).slice(4), ['last [one]', null, 'last [two]', null]);
});

test('word emphasis: a middle too large to align is emphasised as one stretch, still around its common start and end', () => {
  const a = Array.from({ length: 120 }, (_, i) => `a${i}`).join(' ');
  const b = Array.from({ length: 120 }, (_, i) => `b${i}`).join(' ');
  const m = marked(hunk(`-start ${a} end`, `+start ${b} end`));
  assert.equal(m[4], `start [${a}] end`);
  assert.equal(m[5], `start [${b}] end`);
});

test('word emphasis (property): ranges are ordered, inside the line, and what is not emphasised is common to both lines in order', () => {
  const word = fc.constantFrom('a', 'b', 'cat', 'dog', '|', ' ', '  ', '10', 'é', '😀', ',');
  fc.assert(
    fc.property(fc.array(word, { maxLength: 30 }), fc.array(word, { maxLength: 30 }), (x, y) => {
      const a = x.join('');
      const b = y.join('');
      const r = diffEmphasis(hunk(`-${a}`, `+${b}`)).slice(4);
      const rest = (s: string, ranges: Array<[number, number]> | null) => {
        let out = '';
        let at = 0;
        for (const [s0, e] of ranges ?? []) {
          assert.ok(s0 >= at && e > s0 && e <= s.length);
          out += s.slice(at, s0);
          at = e;
        }
        return out + s.slice(at);
      };
      if (r[0] === null && r[1] === null) return;
      assert.equal(rest(a, r[0]!), rest(b, r[1]!), 'the unemphasised text is the same on both sides');
    }),
  );
});
