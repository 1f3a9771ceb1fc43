import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as door from '../../../src/index/index.js';

/**
 * src/index's door: named exports only, and only what other folders import.
 * A name added here is a name some other folder now depends on; one dropped
 * must be dropped by its importers first. Storage never depends on querying:
 * nothing under src/index imports src/retrieval (not even a type).
 */

const DIR = path.resolve(import.meta.dirname, '../../../src/index');

test('index door: its runtime names, pinned', () => {
  assert.deepEqual(Object.keys(door).sort(), [
    'DEFAULT_WALK_INTERVAL_MS',
    'IndexSession',
    'NOTE_SLOT',
    'SECTION_BITS',
    'WatchRefresh',
    'anchorLookupFromDb',
    'backlinksFromIndex',
    'checkFromIndex',
    'cjkBigrams',
    'cjkRuns',
    'compareLinkSnapshot',
    'fileIndexForKeys',
    'fileIndexFromDb',
    'hasCjk',
    'indexFile',
    'isCorruptionError',
    'isQueryStopWord',
    'isStopWord',
    'lineWords',
    'linkSnapshot',
    'mergeTop',
    'nameKey',
    'normalizeText',
    'noteLinksFromIndex',
    'oneShotReader',
    'readLinkSnapshot',
    'resolveFromIndex',
    'runShardedGroups',
    'sectionRange',
    'shardCondition',
    'stemWord',
    'storedMeta',
    'sumOf',
    'termRowMemo',
    'textWords',
    'withFreshIndex',
  ]);
});

test('index door: named exports only (no export *)', () => {
  const text = fs.readFileSync(path.join(DIR, 'index.ts'), 'utf8');
  assert.doesNotMatch(text, /export \*/);
});

test('index: no file under src/index imports src/retrieval (storage does not depend on querying)', () => {
  const offenders = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => /(?:from|import)\s*\(?\s*['"][^'"]*\/retrieval\//.test(fs.readFileSync(path.join(DIR, f), 'utf8')));
  assert.deepEqual(offenders, []);
});
