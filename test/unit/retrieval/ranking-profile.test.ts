import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RANKING_PROFILE } from '../../../src/retrieval/index.js';

test('ranking profile: the default is frozen all the way down', () => {
  assert.ok(Object.isFrozen(DEFAULT_RANKING_PROFILE));
  assert.ok(Object.isFrozen(DEFAULT_RANKING_PROFILE.rank.weights));
  assert.ok(Object.isFrozen(DEFAULT_RANKING_PROFILE.bridge));
  assert.throws(() => {
    (DEFAULT_RANKING_PROFILE.rank as { chooseNotes: number }).chooseNotes = 0;
  }, TypeError);
});
