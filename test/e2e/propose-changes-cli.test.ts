/**
 * `propose --changes FILE` through the compiled CLI (issue #21 §1): one
 * document with every action of the change-request language — write (new and
 * existing), delete, folder move, rename, replace, section, append (note and
 * section), rename_heading — is one proposal, pending, and applies to exactly
 * the files expected, links following. A wrong request is refused naming its
 * index and field, with nothing stored.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { EVERY_CHANGE_APPLIED, EVERY_CHANGE_VAULT, everyChange, vaultFiles } from '../helpers/every-change.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

test('propose --changes: every action in one document, reviewed and applied', async () => {
  const { root, home } = tempVault(EVERY_CHANGE_VAULT);
  const file = path.join(tempDir(), 'changes.json');
  fs.writeFileSync(file, JSON.stringify({ title: 'Every kind', summary: 'one of each', changes: everyChange(root) }));
  const p = await runCliProcess(['propose', '--changes', file, '--json'], { vault: root, home });
  assert.equal(p.exitCode, 0, p.stdout + p.stderr);
  assert.equal(p.json.proposal.state, 'pending', JSON.stringify(p.json.review.checks));
  assert.equal(p.json.proposal.title, 'Every kind');
  const id = p.json.proposal.id as string;
  const review = await runCliProcess(['review', id, '--json'], { vault: root, home });
  const applied = await runCliProcess(['apply', id, '--review-hash', review.json.review_hash, '--json'], { vault: root, home });
  assert.equal(applied.exitCode, 0, applied.stdout);
  assert.deepEqual(vaultFiles(root), EVERY_CHANGE_APPLIED);
});

test('propose --changes: a wrong request names changes[i].field, never a flag, and stores nothing', async () => {
  const { root, home } = tempVault(EVERY_CHANGE_VAULT);
  const dir = tempDir();
  const cases: Array<[unknown[], string, string]> = [
    [[...everyChange(root).slice(0, 2), { action: 'section', path: 'Notes/A.md', base: 'none', heading: 'Open', content: 'x' }], 'CHANGES_INVALID', 'changes[2].base'],
    [[everyChange(root)[0], { action: 'section', path: 'Notes/A.md', base: everyChange(root)[5]!.base, heading: 'Nope', content: 'x' }], 'HEADING_NOT_FOUND', 'changes[1].heading'],
    [[{ action: 'replace', path: 'Notes/C.md', base: everyChange(root)[1]!.base, replace: 'gamma', with: 'x' }], 'EDIT_NO_MATCH', 'changes[0].replace'],
    [[{ action: 'append', path: 'Notes/C.md', base: '0'.repeat(64), content: 'x' }], 'STALE_HASH', 'changes[0].base'],
    [[{ action: 'rename_heading', path: 'Notes/F.md', base: everyChange(root)[9]!.base, heading: 'Plans', to: 'F' }], 'EDIT_AMBIGUOUS', 'changes[0].to'],
  ];
  for (const [i, [changes, code, field]] of cases.entries()) {
    const file = path.join(dir, `c${i}.json`);
    fs.writeFileSync(file, JSON.stringify({ title: 't', changes }));
    const r = await runCliProcess(['propose', '--changes', file, '--json'], { vault: root, home });
    assert.notEqual(r.exitCode, 0, r.stdout);
    assert.equal(r.json.error.code, code, r.stdout);
    assert.equal(r.json.error.details.field, field, r.stdout);
    assert.match(r.json.error.message, new RegExp(field.replace(/[[\].]/g, '\\$&')));
    assert.doesNotMatch(`${r.json.error.message} ${r.json.error.hint}`, /(^|\s)--[a-z]/, r.stdout);
  }
  const list = await runCliProcess(['proposals', '--json'], { vault: root, home });
  assert.equal(list.json.total, 0, 'nothing stored');
  assert.deepEqual(vaultFiles(root), EVERY_CHANGE_VAULT);
});

test('propose: the flags build the same requests (replace, append to a section, rename with a bare name)', async () => {
  const { root, home } = tempVault(EVERY_CHANGE_VAULT);
  const [, , , , rename, replace, , appendSection] = everyChange(root);
  const flags = [
    ['propose', 'Notes/A.md', '--replace', 'teh', '--with', 'the', '--base', replace!.base as string],
    ['propose', 'Notes/A.md', '--append-to-section', 'Open', '--content', '- q2', '--base', appendSection!.base as string],
    ['propose', '--rename', 'Notes/E.md', 'E2', '--base', rename!.base as string],
  ];
  for (const args of flags) {
    const r = await runCliProcess([...args, '--json'], { vault: root, home });
    assert.equal(r.exitCode, 0, r.stdout);
    assert.equal(r.json.proposal.state, 'pending', r.stdout);
  }
  // a wrong flag-built request is told with the flags (the caller typed flags)
  const bad = await runCliProcess(['propose', 'Notes/A.md', '--replace', 'nothere', '--with', 'x', '--base', replace!.base as string, '--json'], { vault: root, home });
  assert.equal(bad.json.error.code, 'EDIT_NO_MATCH');
  assert.equal(bad.json.error.details.field, undefined, 'no list, no index');
});
