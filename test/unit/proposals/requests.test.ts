/**
 * The change-request language (issue #21 §1): one parser for every face that
 * sends the list itself (`--changes`, MCP, web API), driven by the action
 * table. Every action parses; every refusal names the request and the field
 * (`changes[2].heading`), never a CLI flag; requests on one note compose or are
 * refused with a typed error.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../../src/errors.js';
import { resolveChanges } from '../../../src/proposals/changes.js';
import { parseChangesDocument } from '../../../src/proposals/changes-json.js';
import { ACTIONS, parseChangeList, type ChangeRequest } from '../../../src/proposals/requests.js';
import { tempDir } from '../../helpers/temp-vault.js';

const S = 'a'.repeat(64);
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

function refused(fn: () => unknown, code: string, field: string, message?: RegExp): void {
  assert.throws(fn, (e) => {
    assert.ok(isVaultgateError(e), String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.details?.field, field, e.message);
    assert.ok(e.message.includes(field), `the message names ${field}: ${e.message}`);
    assert.doesNotMatch(`${e.message} ${e.hint ?? ''}`, /(^|\s)--[a-z]/, `no CLI flag: ${e.message} / ${e.hint}`);
    if (message) assert.match(e.message, message);
    return true;
  });
}

test('every action of the table parses; "none" and null both mean no base', () => {
  const all: unknown[] = [
    { action: 'write', path: 'New.md', base: 'none', content: '# New\n' },
    { action: 'write', path: 'Old.md', base: S, content: '' },
    { action: 'delete', path: 'Gone.md', base: S },
    { action: 'move', path: 'A.md', base: S, to: 'B/' },
    { action: 'move', path: 'Folder/', base: null, to: 'Archive/Folder/' },
    { action: 'rename', path: 'A.md', base: S, to: 'C' },
    { action: 'replace', path: 'A.md', base: S, replace: 'teh', with: '' },
    { action: 'section', path: 'A.md', base: S, heading: 'A > B', content: 'body\n' },
    { action: 'append', path: 'A.md', base: S, content: 'end\n' },
    { action: 'append', path: 'A.md', base: S, heading: 'Open', content: '- q\n' },
    { action: 'rename_heading', path: 'A.md', base: S, heading: 'Open', to: 'Questions' },
    { action: 'capture', source: 'inbox/a.html' },
  ];
  const parsed = parseChangeList(all);
  assert.equal(parsed.length, all.length);
  assert.deepEqual(parsed[0], { action: 'write', path: 'New.md', base: null, content: '# New\n' });
  assert.equal((parsed[4] as { base: unknown }).base, null);
  assert.deepEqual(parsed[9], { action: 'append', path: 'A.md', base: S, heading: 'Open', content: '- q\n' });
  assert.deepEqual(new Set(parsed.map((r) => r.action)), new Set(Object.keys(ACTIONS)), 'the test covers every action of the table');
});

test('capture (issue 22 §3) names a source and no path or base; the document may name its operation type', () => {
  assert.deepEqual(parseChangeList([{ action: 'capture', source: 'inbox/a.md' }]), [{ action: 'capture', source: 'inbox/a.md' }]);
  refused(() => parseChangeList([{ action: 'capture', source: 'a.md', path: 'x.md', base: null }]), 'CHANGES_INVALID', 'changes[0].path', /unknown field/);
  refused(() => parseChangeList([{ action: 'capture' }]), 'CHANGES_INVALID', 'changes[0].source', /missing/);
  const doc = parseChangesDocument(JSON.stringify({ title: 'T', type: 'ingest', changes: [{ action: 'capture', source: 'a.md' }] }), 'c.json', (s) => `/abs/${s}`);
  assert.deepEqual([doc.type, doc.changes], ['ingest', [{ action: 'capture', source: '/abs/a.md' }]]);
  refused(() => parseChangesDocument(JSON.stringify({ title: 'T', type: 7, changes: [{ action: 'capture', source: 'a.md' }] }), 'c.json'), 'CHANGES_INVALID', 'type');
});

test('each refusal names the request index and the field', () => {
  refused(() => parseChangeList({}), 'CHANGES_INVALID', 'changes', /list/);
  refused(() => parseChangeList([]), 'CHANGES_INVALID', 'changes', /at least one/);
  const ok = { action: 'delete', path: 'A.md', base: S };
  const at2 = (r: unknown) => () => parseChangeList([ok, ok, r]);
  refused(at2('x'), 'CHANGES_INVALID', 'changes[2]', /object/);
  refused(at2([]), 'CHANGES_INVALID', 'changes[2]', /object/);
  refused(at2({ path: 'A.md', base: S }), 'CHANGES_INVALID', 'changes[2].action', /missing/);
  refused(at2({ action: 'frobnicate', path: 'A.md', base: S }), 'CHANGES_INVALID', 'changes[2].action', /unknown action "frobnicate".*rename_heading/);
  refused(at2({ action: 'delete', path: 'A.md', base: S, content: 'x' }), 'CHANGES_INVALID', 'changes[2].content', /unknown field/);
  refused(at2({ action: 'move', path: 'A.md', base: S, to: 'B.md', name: 'B' }), 'CHANGES_INVALID', 'changes[2].name', /unknown field/);
  refused(at2({ action: 'delete', base: S }), 'CHANGES_INVALID', 'changes[2].path', /missing/);
  refused(at2({ action: 'delete', path: '', base: S }), 'CHANGES_INVALID', 'changes[2].path');
  refused(at2({ action: 'delete', path: 7, base: S }), 'CHANGES_INVALID', 'changes[2].path');
  refused(at2({ action: 'delete', path: 'A.md' }), 'CHANGES_INVALID', 'changes[2].base', /missing/);
  refused(at2({ action: 'delete', path: 'A.md', base: 'ABC' }), 'CHANGES_INVALID', 'changes[2].base', /not a sha256/);
  for (const action of ['delete', 'replace', 'section', 'append', 'rename_heading']) {
    const r = { action, path: 'A.md', base: 'none', replace: 'a', with: 'b', heading: 'H', content: 'c', to: 'T' };
    const fields = new Set(['action', 'path', 'base', ...Object.keys(ACTIONS[action as ChangeRequest['action']].fields)]);
    refused(at2(Object.fromEntries(Object.entries(r).filter(([k]) => fields.has(k)))), 'CHANGES_INVALID', 'changes[2].base', /existing note/);
  }
  refused(at2({ action: 'write', path: 'A.md', base: S }), 'CHANGES_INVALID', 'changes[2].content', /missing/);
  refused(at2({ action: 'write', path: 'A.md', base: S, content: 1 }), 'CHANGES_INVALID', 'changes[2].content', /string/);
  refused(at2({ action: 'move', path: 'A.md', base: S }), 'CHANGES_INVALID', 'changes[2].to', /missing/);
  refused(at2({ action: 'rename', path: 'A.md', base: S, to: ' ' }), 'CHANGES_INVALID', 'changes[2].to', /empty/);
  refused(at2({ action: 'replace', path: 'A.md', base: S, with: 'x' }), 'CHANGES_INVALID', 'changes[2].replace', /missing/);
  refused(at2({ action: 'replace', path: 'A.md', base: S, replace: '', with: 'x' }), 'CHANGES_INVALID', 'changes[2].replace', /empty/);
  refused(at2({ action: 'replace', path: 'A.md', base: S, replace: 'x' }), 'CHANGES_INVALID', 'changes[2].with', /missing/);
  refused(at2({ action: 'section', path: 'A.md', base: S, content: 'x' }), 'CHANGES_INVALID', 'changes[2].heading', /missing/);
  refused(at2({ action: 'section', path: 'A.md', base: S, heading: 'H' }), 'CHANGES_INVALID', 'changes[2].content', /missing/);
  refused(at2({ action: 'append', path: 'A.md', base: S, content: '' }), 'CHANGES_INVALID', 'changes[2].content', /empty/);
  refused(at2({ action: 'append', path: 'A.md', base: S, content: 'x', heading: '' }), 'CHANGES_INVALID', 'changes[2].heading', /empty/);
  refused(at2({ action: 'rename_heading', path: 'A.md', base: S, heading: 'H' }), 'CHANGES_INVALID', 'changes[2].to', /missing/);
});

test('the --changes document: strict JSON, known top-level fields, a title; errors start with the file name', () => {
  const doc = parseChangesDocument(JSON.stringify({ title: 'T', summary: 'why', changes: [{ action: 'delete', path: 'A.md', base: S }] }), 'c.json');
  assert.deepEqual(doc, { title: 'T', summary: 'why', changes: [{ action: 'delete', path: 'A.md', base: S }] });
  const bad = (text: string, field: string) =>
    assert.throws(
      () => parseChangesDocument(text, 'c.json'),
      (e) => isVaultgateError(e) && e.code === 'CHANGES_INVALID' && e.details?.field === field && e.message.startsWith(`c.json: ${field}`),
    );
  bad('{"title":"T","changes":[],"extra":1}', 'extra');
  bad('{"changes":[{"action":"delete","path":"A.md","base":"none"}]}', 'title');
  bad('{"title":"T"}', 'changes');
  bad('{"title":"T","title":"U","changes":[]}', '(document)');
  bad(`{"title":"T","changes":[{"action":"section","path":"A.md","base":"${S}","content":"x"}]}`, 'changes[0].heading');
});

/** A folder standing for a vault, and the sha256 of each note written. */
function vault(files: Record<string, string>): { root: string; base: Record<string, string> } {
  const root = tempDir();
  const base: Record<string, string> = {};
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), text);
    base[p] = sha(text);
  }
  return { root, base };
}

const NOTE = '# A\n\nteh cat sat\n\n## Open\n\n- q1\n\n## Done\n\nx\n';

test('edits of one note compose in list order into one write against the base read', () => {
  const { root, base } = vault({ 'A.md': NOTE });
  const b = base['A.md']!;
  const changes = resolveChanges(
    root,
    parseChangeList([
      { action: 'replace', path: 'A.md', base: b, replace: 'teh', with: 'the' },
      { action: 'replace', path: 'A.md', base: b, replace: 'the cat', with: 'the dog' },
      { action: 'append', path: 'A.md', base: b, heading: 'Open', content: '- q2' },
      { action: 'section', path: 'A.md', base: b, heading: 'Done', content: 'y' },
      { action: 'append', path: 'A.md', base: b, content: 'end\n' },
    ]),
    undefined,
    [],
    { locate: true },
  );
  assert.equal(changes.length, 1);
  assert.equal(changes[0]!.base_sha256, b);
  assert.equal(changes[0]!.new_text, '# A\n\nthe dog sat\n\n## Open\n\n- q1\n- q2\n\n## Done\n\ny\nend\n');
});

test('several requests on one path: a delete, move, rename or heading rename must be alone; the bases must agree', () => {
  const { root, base } = vault({ 'A.md': NOTE, 'B.md': '# B\n' });
  const b = base['A.md']!;
  const run = (list: unknown[]) => () => resolveChanges(root, parseChangeList(list), undefined, [], { locate: true });
  const edit = { action: 'replace', path: 'A.md', base: b, replace: 'teh', with: 'the' };
  refused(run([edit, { action: 'delete', path: 'A.md', base: b }]), 'CHANGES_INVALID', 'changes[1].path', /changes\[0\]/);
  refused(run([{ action: 'move', path: 'A.md', base: b, to: 'C.md' }, edit]), 'CHANGES_INVALID', 'changes[1].path', /move must be the only/);
  refused(run([edit, { action: 'rename_heading', path: 'A.md', base: b, heading: 'Open', to: 'Q' }]), 'CHANGES_INVALID', 'changes[1].path');
  refused(run([edit, { ...edit, base: base['B.md'], replace: 'cat' }]), 'CHANGES_INVALID', 'changes[1].base', /differs/);
  // two edits whose second no longer finds its text (the first changed it): that request's field
  refused(run([edit, { ...edit }]), 'EDIT_NO_MATCH', 'changes[1].replace');
});

test('errors met while resolving name the request and field, never a flag', () => {
  const { root, base } = vault({ 'A.md': NOTE, 'B.md': '# B\n', 'Dir/x.md': 'x\n' });
  const b = base['A.md']!;
  const run = (r: unknown) => () => resolveChanges(root, parseChangeList([{ action: 'delete', path: 'B.md', base: base['B.md'] }, r]), undefined, [], { locate: true });
  refused(run({ action: 'replace', path: 'A.md', base: b, replace: 'nothere', with: 'x' }), 'EDIT_NO_MATCH', 'changes[1].replace');
  refused(run({ action: 'replace', path: 'A.md', base: b, replace: '#', with: 'x' }), 'EDIT_AMBIGUOUS', 'changes[1].replace');
  refused(run({ action: 'section', path: 'A.md', base: b, heading: 'Nope', content: 'x' }), 'HEADING_NOT_FOUND', 'changes[1].heading');
  refused(run({ action: 'append', path: 'A.md', base: b, heading: 'A > Nope', content: 'x' }), 'HEADING_NOT_FOUND', 'changes[1].heading');
  refused(run({ action: 'rename_heading', path: 'A.md', base: b, heading: 'Open', to: 'Done' }), 'EDIT_AMBIGUOUS', 'changes[1].to');
  refused(run({ action: 'write', path: 'A.md', base: S, content: 'x' }), 'STALE_HASH', 'changes[1].base');
  refused(run({ action: 'write', path: 'A.md', base: b, content: NOTE }), 'PROPOSAL_NOOP', 'changes[1].content');
  refused(run({ action: 'replace', path: 'A.md', base: b, replace: 'teh', with: 'teh' }), 'PROPOSAL_NOOP', 'changes[1].with');
  refused(run({ action: 'move', path: 'A.md', base: b, to: 'B.md' }), 'STALE_HASH', 'changes[1].to', /exists/);
  refused(run({ action: 'move', path: 'A.md', base: 'none', to: 'C.md' }), 'USAGE', 'changes[1].base', /needs/);
  refused(run({ action: 'move', path: 'Dir', base: b, to: 'New' }), 'USAGE', 'changes[1].base', /folder/);
  refused(run({ action: 'rename', path: 'A.md', base: b, to: 'Dir/C' }), 'USAGE', 'changes[1].to', /same folder/);
  refused(run({ action: 'write', path: '.obsidian/x.md', base: 'none', content: 'x' }), 'PATH_RESERVED', 'changes[1].path');
});

test('rename: `to` is the new name (a note keeps .md) or a path in the same folder', () => {
  const { root, base } = vault({ 'Dir/A.md': '# A\n' });
  for (const to of ['B', 'B.md', 'Dir/B.md', 'Dir/B']) {
    const [c] = resolveChanges(root, parseChangeList([{ action: 'rename', path: 'Dir/A.md', base: base['Dir/A.md'], to }]));
    assert.deepEqual([c!.action, c!.path, c!.to], ['move', 'Dir/A.md', 'Dir/B.md'], to);
  }
});
