/**
 * Storage never depends on querying: nothing under src/index imports
 * src/retrieval, not even a type (retrieval reads the index through its door).
 * The index door's names are pinned with every other door's in
 * test/unit/architecture/doors.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const DIR = path.resolve(import.meta.dirname, '../../../src/index');

test('index: no file under src/index imports src/retrieval (storage does not depend on querying)', () => {
  const offenders = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => /(?:from|import)\s*\(?\s*['"][^'"]*\/retrieval\//.test(fs.readFileSync(path.join(DIR, f), 'utf8')));
  assert.deepEqual(offenders, []);
});
