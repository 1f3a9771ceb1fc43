import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as door from '../../../src/retrieval/index.js';

/** src/retrieval's door: named exports only, and only what other folders import (context, dense, ingest, ops, eval). */

test('retrieval door: its runtime names, pinned', () => {
  assert.deepEqual(Object.keys(door).sort(), [
    'DEFAULT_RANKING_PROFILE',
    'SECTION_COLUMNS',
    'bestSectionInNote',
    'locateSection',
    'makeSnippet',
    'parseQuery',
    'rankedNotes',
    'readNoteSection',
    'searchIndex',
    'sectionAtLine',
    'windowNote',
  ]);
});

test('retrieval door: named exports only (no export *)', () => {
  const text = fs.readFileSync(path.resolve(import.meta.dirname, '../../../src/retrieval/index.ts'), 'utf8');
  assert.doesNotMatch(text, /export \*/);
});
