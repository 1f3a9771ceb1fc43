import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const NOTE = `# Sourdough

## Starter

Feed the starter every 12 hours with equal weights of flour and water.

## Baking

Bake at 250 °C for twenty minutes with steam.
`;

function setup() {
  const v = tempVault({ 'Cooking/Sourdough.md': NOTE, 'Other.md': '# Other\n\nNothing here.\n' });
  const cli = (args: string[]) => runCli(args, { vault: v.root, home: v.home, cwd: v.root });
  const write = (name: string, value: unknown) => {
    const f = path.join(v.root, '..', name);
    fs.writeFileSync(f, typeof value === 'string' ? value : JSON.stringify(value));
    return f;
  };
  return { ...v, cli, write };
}

const quote = (q: string, lines: [number, number], p = 'Cooking/Sourdough.md') => ({ path: p, lines, quote: q });

test('verify: a quote in the cited lines’ section is ok; elsewhere in the note, or nowhere, is said so', async () => {
  const { cli, write } = setup();
  const answer = write('a.json', {
    claims: [
      { text: 'feed twice a day', evidence: [quote('every 12 hours', [5, 5])] },
      { text: 'bake hot', evidence: [quote('250 °C', [5, 5])] },
      { text: 'made up', evidence: [quote('every 8 hours', [5, 5]), quote('x', [1, 1], 'Missing.md')] },
      { text: 'no evidence', evidence: [] },
    ],
  });
  const r = await cli(['verify', answer]);
  assert.equal(r.exitCode, 0, 'exit 0 either way without --strict');
  assert.equal(r.json.verified, false);
  assert.deepEqual(r.json.claims.map((c: any) => [c.verified, c.citations.map((x: any) => x.status)]), [
    [true, ['ok']],
    [false, ['elsewhere_in_note']],
    [false, ['not_found', 'not_found']],
    [false, []],
  ]);
  assert.deepEqual(r.json.claims[1].citations[0].found_lines, [9, 9]);
  assert.match(r.json.note, /does not check that the quotes support the claims/);
  const strict = await cli(['verify', answer, '--strict']);
  assert.equal(strict.exitCode, 2);
  const good = write('good.json', { claims: [{ text: 'feed twice a day', evidence: [quote('Feed the starter every 12 hours', [3, 6])] }] });
  assert.equal((await cli(['verify', good, '--strict'])).exitCode, 0);
});

test('verify: packet ids — ok while the file is unchanged, file_changed once the evidence text is gone, unknown ids said so', async () => {
  const { cli, write, root } = setup();
  const packet = await cli(['context', 'how often do I feed the starter', '--limit', '1', '--max-linked', '0']);
  assert.equal(packet.exitCode, 0, packet.stdout);
  const packetFile = write('packet.json', packet.stdout);
  const answer = write('ids.json', { claims: [{ text: 'feed twice a day', evidence: [{ id: 'e1' }, { id: 'e9' }] }] });
  let r = await cli(['verify', answer, '--packet', packetFile]);
  assert.deepEqual(r.json.claims[0].citations.map((c: any) => c.status), ['ok', 'unknown_id']);
  assert.equal((await cli(['verify', answer])).json.claims[0].citations[0].status, 'unknown_id', 'no packet: ids cannot be looked up');
  fs.appendFileSync(path.join(root, 'Cooking/Sourdough.md'), '\nA later line.\n');
  r = await cli(['verify', answer, '--packet', packetFile]);
  assert.equal(r.json.claims[0].citations[0].status, 'ok', 'the file changed elsewhere: the evidence text is still at its lines');
  fs.writeFileSync(path.join(root, 'Cooking/Sourdough.md'), NOTE.replace('12 hours', '8 hours'));
  r = await cli(['verify', answer, '--packet', packetFile]);
  assert.equal(r.json.claims[0].citations[0].status, 'file_changed');
});

test('verify: a malformed answer is INVALID_INPUT naming the field (exit 2), never a crash', async () => {
  const { cli, write } = setup();
  for (const [doc, field] of [
    ['not json', undefined],
    [{ claims: {} }, 'claims'],
    [{ claims: [{ text: 'x', evidence: [{ path: 'a.md', lines: [3, 1], quote: 'q' }] }] }, 'claims[0].evidence[0].lines'],
    [{ claims: [{ text: 'x', evidence: [{ id: 'e1', quote: 'q' }] }] }, 'claims[0].evidence[0]'],
    [{ claims: [], extra: 1 }, 'extra'],
  ] as const) {
    const r = await cli(['verify', write('bad.json', doc)]);
    assert.equal(r.exitCode, 2, r.stdout);
    assert.equal(r.json.error.code, 'INVALID_INPUT');
    if (field) assert.equal(r.json.error.details.field, field);
  }
});
