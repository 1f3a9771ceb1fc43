import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addLinks, planIndex } from '../../../../src/wing/atomize/links.js';
import { DEFAULT_LINK_FORMAT, resolveLinkPath } from '../../../../src/links/index.js';
import { parseNote } from '../../../../src/markdown/index.js';
import { linksToText } from '../../../../src/markdown/verbatim.js';

test('links from the registry: first plain mention only, longest name first, words kept, each resolves to the entity note', () => {
  // a vault note with the same name elsewhere forces a longer link path
  const index = planIndex(['Other/Strike.md'], ['Rules/Warden.md', 'Rules/Combat/Strike.md', 'Rules/Guard Captain.md', 'Rules/Guard.md']);
  const text = ['---', 'kind: rule', '---', '# Parry', '', 'The warden may parry a strike once.', '', 'The Guard Captain and a Guard may not. The warden again.', '', 'Source: [[Book#Combat|Combat]]', ''].join('\n');
  const targets = [
    { path: 'Rules/Warden.md', terms: ['Warden', 'Wardens'] },
    { path: 'Rules/Combat/Strike.md', terms: ['Strike'] },
    { path: 'Rules/Guard.md', terms: ['Guard'] },
    { path: 'Rules/Guard Captain.md', terms: ['Guard Captain'] },
  ];
  const r = addLinks(text, 'Rules/Parry.md', targets, index, DEFAULT_LINK_FORMAT);
  assert.equal(r.added, 4);
  assert.equal(linksToText(r.text), text.replace('[[Book#Combat|Combat]]', 'Combat'), 'the reader sees the same words');
  assert.equal(r.text.match(/\[\[/g)!.length, 5, 'one link per entity (plus the Source line)');
  const links = parseNote(r.text).links.filter((l) => !l.raw.includes('Book'));
  const targetsOf = links.map((l) => resolveLinkPath(index, l.path, 'Rules/Parry.md').target).sort();
  assert.deepEqual(targetsOf, ['Rules/Combat/Strike.md', 'Rules/Guard Captain.md', 'Rules/Guard.md', 'Rules/Warden.md']);
  assert.match(r.text, /\[\[Combat\/Strike\|strike\]\]/, 'Other/Strike.md makes the bare name ambiguous: a longer path');
  // idempotent: linked targets are not linked again
  assert.equal(addLinks(r.text, 'Rules/Parry.md', targets, index, DEFAULT_LINK_FORMAT).added, 0);
});
