/**
 * Parses of long proposal texts are kept in the proposal store between
 * propose, review and apply (issue 20 §8): read back equal to a fresh parse,
 * never from another build or a row that does not read back, bounded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNote } from '../../../src/markdown/index.js';
import { ProposalStore } from '../../../src/proposals/index.js';
import { KeptParses, MAX_KEPT_BYTES } from '../../../src/proposals/parse-cache.js';
import { HASH_KEY_CHARS, textKey, textMemo } from '../../../src/proposals/text-key.js';
import { tempVault } from '../../helpers/temp-vault.js';

/** A note well over the HASH_KEY_CHARS from which texts are keyed by hash: links, a heading, frontmatter with `.inf`. */
function longNote(seed: number): string {
  const words = Array.from({ length: 4000 }, (_, i) => (i % 97 === 0 ? `[[Note ${(i + seed) % 13}#Part|shown]]` : `word${(i * seed) % 31}`));
  return `---\nlimit: .inf\ntags: [a]\n---\n# Title ${seed}\n\n${words.join(' ')}\n\n## Part\n\nlast ^block-${seed}\n`;
}

function openStore(): { store: ProposalStore; close: () => void } {
  const { root, home } = tempVault();
  const store = ProposalStore.open(root, { VAULTGATE_HOME: home });
  return { store, close: () => store.db.close() };
}

test('a kept parse reads back equal to a fresh parse, in a later memo of the same store', () => {
  const { store, close } = openStore();
  try {
    const text = longNote(1);
    const first = store.parses();
    let made = 0;
    const parse = textMemo(first, (t) => (made++, parseNote(t)));
    const model = parse(text);
    first.keep();
    assert.equal(made, 1);

    const later = store.parses();
    const again = textMemo(later, () => assert.fail('a kept parse is not made again'));
    const read = again(text);
    assert.deepEqual(read, model);
    assert.equal(read.frontmatter?.data && (read.frontmatter.data as { limit: number }).limit, Infinity);
    assert.equal(read.links.length, model.links.length);
  } finally {
    close();
  }
});

test('short texts are not kept: they parse about as fast as a row is read', () => {
  const { store, close } = openStore();
  try {
    const memo = store.parses();
    textMemo(memo, parseNote)('# short\n\n[[A]]\n');
    memo.keep();
    assert.equal(store.db.prepare('SELECT COUNT(*) FROM parses').pluck().get(), 0);
  } finally {
    close();
  }
});

/**
 * Issue 20 §8: only texts over 16,000 characters were kept, so a proposal of
 * 1,000 ordinary notes (a few KB each) parsed its 2,000 texts again in every
 * review and apply. A note of a few KB is kept now, and read back, not parsed.
 */
test('an ordinary note of a few KB is kept and read back by a later memo, not parsed again', () => {
  const { store, close } = openStore();
  try {
    const text = `# Note\n\n${Array.from({ length: 400 }, (_, i) => (i % 50 === 0 ? `[[N${i}]]` : `word${i}`)).join(' ')}\n`;
    assert.ok(text.length > HASH_KEY_CHARS && text.length < 16_000);
    const first = store.parses();
    const model = textMemo(first, parseNote)(text);
    first.keep();
    assert.equal(store.db.prepare('SELECT COUNT(*) FROM parses').pluck().get(), 1);
    const again = textMemo(store.parses(), () => assert.fail('a kept parse is not made again'))(text);
    assert.deepEqual(again, model);
  } finally {
    close();
  }
});

test('a parse kept by another build, or a row that does not read back, is not used; the broken row is dropped', () => {
  const { store, close } = openStore();
  try {
    const a = longNote(2);
    const b = longNote(3);
    const memo = store.parses();
    const parse = textMemo(memo, parseNote);
    parse(a);
    parse(b);
    memo.keep();
    store.db.prepare("UPDATE parses SET build = 'another-build' WHERE key = ?").run(textKey(a));
    store.db.prepare("UPDATE parses SET model = x'00ff' WHERE key = ?").run(textKey(b));
    const later = store.parses();
    let made = 0;
    const again = textMemo(later, (t) => (made++, parseNote(t)));
    assert.deepEqual(again(a), parseNote(a));
    assert.deepEqual(again(b), parseNote(b));
    assert.equal(made, 2);
    assert.equal(store.db.prepare('SELECT COUNT(*) FROM parses WHERE key = ?').pluck().get(textKey(b)), 0);
  } finally {
    close();
  }
});

test('the kept parses stay under their bound, oldest dropped first', () => {
  const { store, close } = openStore();
  try {
    const big = Buffer.alloc(MAX_KEPT_BYTES / 4);
    const put = store.db.prepare("INSERT INTO parses (key, build, bytes, model) VALUES (?, 'old', ?, ?)");
    for (let i = 0; i < 4; i++) put.run(`h1:old${i}`, big.byteLength, big);
    const memo = store.parses();
    textMemo(memo, parseNote)(longNote(4));
    memo.keep();
    const total = store.db.prepare('SELECT SUM(bytes) FROM parses').pluck().get() as number;
    assert.ok(total <= MAX_KEPT_BYTES, `${total} bytes kept`);
    const keys = store.db.prepare('SELECT key FROM parses ORDER BY rowid').pluck().all() as string[];
    assert.equal(keys.includes('h1:old0'), false, 'the oldest row went first');
    assert.equal(keys.at(-1), textKey(longNote(4)));
  } finally {
    close();
  }
});

test('KeptParses is a Map: what is set is got, whatever the key', () => {
  const { store, close } = openStore();
  try {
    const memo = new KeptParses(store.db);
    const m = parseNote('x');
    memo.set('tx', m);
    assert.equal(memo.get('tx'), m);
    assert.equal(memo.get('h9:absent'), undefined);
  } finally {
    close();
  }
});
