/**
 * The three floors of src/, as docs/architecture.md's map draws them:
 *
 * - the core: every folder and root file of src/ that is neither wing nor
 *   face — vault, markdown, links, txn, index, retrieval, context, store,
 *   policy, state, session, proposals, ingest;
 * - the optional wing, src/wing/<part>: similar, dense, providers, evidence,
 *   plan, atomize, linalg — what similarity, models and books add;
 * - the faces and the operation table that composes core and wing: ops, cli,
 *   mcp, inbox, skill.
 *
 * Imports point down only: the core imports neither the wing nor a face (so
 * the core reads, and could ship, alone), and the wing imports no face.
 * Type-only imports count here: a type is still knowledge of the floor above.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readSourceShape } from '../../../scripts/code-analysis.js';

const SRC = path.resolve(import.meta.dirname, '../../../src');
const FACES = ['cli', 'inbox', 'mcp', 'ops', 'skill'];
const WING = ['atomize', 'dense', 'evidence', 'linalg', 'plan', 'providers', 'similar'];

type Floor = 'core' | 'wing' | 'face';
const RANK: Record<Floor, number> = { core: 0, wing: 1, face: 2 };
/** `src/wing/similar/lsa.ts` → wing; `src/ops/table.ts` → face; anything else → core. */
function floorOf(file: string): Floor {
  const first = file.split('/')[1]!;
  if (first === 'wing') return 'wing';
  return FACES.includes(first) ? 'face' : 'core';
}

test('the wing and the faces are the folders the map names', () => {
  assert.deepEqual(fs.readdirSync(path.join(SRC, 'wing')).sort(), WING);
  for (const f of FACES) assert.ok(fs.statSync(path.join(SRC, f)).isDirectory(), `src/${f}`);
});

test('imports point down only: the core imports no wing or face, the wing no face (types included)', () => {
  const { typeImports } = readSourceShape(SRC);
  const upward: string[] = [];
  for (const [from, targets] of typeImports) {
    for (const to of targets) if (RANK[floorOf(to)] > RANK[floorOf(from)]) upward.push(`${from} (${floorOf(from)}) → ${to} (${floorOf(to)})`);
  }
  assert.deepEqual(upward, [], `imports that point up a floor:\n${upward.join('\n')}`);
});

test('the floors are told apart: a wing file and a face file are not core', () => {
  assert.equal(floorOf('src/wing/similar/lsa.ts'), 'wing');
  assert.equal(floorOf('src/ops/table.ts'), 'face');
  assert.equal(floorOf('src/inbox/web/server.ts'), 'face');
  assert.equal(floorOf('src/index/refresh.ts'), 'core');
  assert.equal(floorOf('src/errors.ts'), 'core');
});
