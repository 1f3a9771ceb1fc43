import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RANKING_PROFILE } from '../../../src/retrieval/index.js';
import { profileWith } from '../../../eval/lib/profile.js';

/** The eval's `--param`: a variant of the frozen default, never a change to it. */

test('eval profile: a --param builds a variant and leaves the frozen default alone', () => {
  const before = JSON.stringify(DEFAULT_RANKING_PROFILE);
  const v = profileWith(DEFAULT_RANKING_PROFILE, ['chooseNotes=0', 'weights.body=1.5', 'bridge.familyWeight=0.5', 'nextSectionRatio=0.4']);
  assert.equal(v.rank.chooseNotes, 0);
  assert.equal(v.rank.weights.body, 1.5);
  assert.equal(v.rank.weights.title, DEFAULT_RANKING_PROFILE.rank.weights.title);
  assert.equal(v.bridge.familyWeight, 0.5);
  assert.equal(v.context.nextSectionRatio, 0.4);
  assert.equal(JSON.stringify(DEFAULT_RANKING_PROFILE), before);
  assert.throws(() => profileWith(DEFAULT_RANKING_PROFILE, ['enabled=true']), /unknown --param enabled/);
  assert.throws(() => profileWith(DEFAULT_RANKING_PROFILE, ['weights.nope=1']), /unknown --param/);
});
