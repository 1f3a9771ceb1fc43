import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { answerJsonSchema } from '../../../../src/wing/evidence/index.js';
import { REPO_ROOT } from '../../../helpers/run-cli.js';

test('docs/similar.md publishes exactly the answer schema the code validates against', () => {
  const page = fs.readFileSync(path.join(REPO_ROOT, 'docs/similar.md'), 'utf8');
  const block = /## The answer schema[\s\S]*?```json\n([\s\S]*?)\n```/.exec(page);
  assert.ok(block, 'a json block under "The answer schema"');
  assert.deepEqual(JSON.parse(block[1]!), answerJsonSchema());
});
