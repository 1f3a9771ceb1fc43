import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addDenyRules, CLAUDE_DENY_RULES, removeDenyRules } from '../../../src/skill/index.js';
import { isVaultgateError } from '../../../src/errors.js';

const F = '/home/u/.claude/settings.json';

function refused(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(isVaultgateError(e) && e.code === 'CONFIG_INVALID', String(e));
    return e.message;
  }
  assert.fail('expected CONFIG_INVALID');
}

test('guard: no settings file → one with exactly the deny rules', () => {
  const r = addDenyRules(F, null, CLAUDE_DENY_RULES);
  assert.deepEqual(JSON.parse(r.text), { permissions: { deny: [...CLAUDE_DENY_RULES] } });
  assert.deepEqual(r.added, [...CLAUDE_DENY_RULES]);
});

test('guard: the user’s file keeps every key, its order, unknown keys and its indentation; rules already there are not repeated', () => {
  const original = [
    '{',
    '    "model": "opus",',
    '    "permissions": {',
    '        "allow": ["Bash(npm test)"],',
    '        "deny": ["Read(.env)", "Bash(vaultgate undo *)"],',
    '        "defaultMode": "default"',
    '    },',
    '    "hooks": {"PreToolUse": []},',
    '    "zz_unknown": {"nested": [1, 2.5, true, null, "ü\\u00e9"]}',
    '}',
    '',
  ].join('\n');
  const r = addDenyRules(F, original, CLAUDE_DENY_RULES);
  const doc = JSON.parse(r.text);
  assert.deepEqual(Object.keys(doc), ['model', 'permissions', 'hooks', 'zz_unknown']);
  assert.deepEqual(Object.keys(doc.permissions), ['allow', 'deny', 'defaultMode']);
  assert.deepEqual(doc.permissions.deny, ['Read(.env)', 'Bash(vaultgate undo *)', ...CLAUDE_DENY_RULES.filter((r) => r !== 'Bash(vaultgate undo *)')]);
  assert.deepEqual(r.added, CLAUDE_DENY_RULES.filter((r) => r !== 'Bash(vaultgate undo *)'));
  assert.deepEqual(doc.zz_unknown, JSON.parse(original).zz_unknown);
  assert.match(r.text, /\n {4}"model"/, 'four-space indentation kept');
  assert.ok(r.text.endsWith('}\n'));
  // Idempotent: a second merge adds nothing and leaves the bytes alone.
  const again = addDenyRules(F, r.text, CLAUDE_DENY_RULES);
  assert.deepEqual(again.added, []);
  assert.equal(again.text, r.text);
  // Removal takes only the rules vaultgate added; the user's own vaultgate rule stays.
  const removed = removeDenyRules(F, r.text, r.added);
  assert.deepEqual(JSON.parse(removed.text).permissions.deny, ['Read(.env)', 'Bash(vaultgate undo *)']);
  assert.equal(removed.empty, false);
});

test('guard: a file the strict parser refuses, or one a rewrite would change, is left untouched with a hint naming the rules', () => {
  assert.match(refused(() => addDenyRules(F, '{"a": 1, "a": 2}', CLAUDE_DENY_RULES)), /duplicate key/);
  assert.match(refused(() => addDenyRules(F, '{"a": 1,}', CLAUDE_DENY_RULES)), /not strict JSON/);
  assert.match(refused(() => addDenyRules(F, '// comment\n{}', CLAUDE_DENY_RULES)), /not strict JSON/);
  assert.match(refused(() => addDenyRules(F, '[]', CLAUDE_DENY_RULES)), /top level/);
  assert.match(refused(() => addDenyRules(F, '{"permissions": []}', CLAUDE_DENY_RULES)), /"permissions" is not an object/);
  assert.match(refused(() => addDenyRules(F, '{"permissions": {"deny": "Bash"}}', CLAUDE_DENY_RULES)), /deny/);
  assert.match(refused(() => addDenyRules(F, '{"id": 12345678901234567890}', CLAUDE_DENY_RULES)), /lose digits/);
  assert.match(refused(() => addDenyRules(F, '{"b": 1, "2": 3}', CLAUDE_DENY_RULES)), /would move/);
  try {
    addDenyRules(F, '{"a": 1, "a": 2}', CLAUDE_DENY_RULES);
  } catch (e) {
    assert.ok(isVaultgateError(e) && e.hint?.includes('Bash(vaultgate apply *)'));
  }
});

test('guard: keys the merge created go again when left empty; a file vaultgate created and that holds nothing else is reported empty', () => {
  const r = addDenyRules(F, null, CLAUDE_DENY_RULES);
  assert.deepEqual(r.created, ['permissions', 'permissions.deny']);
  assert.equal(removeDenyRules(F, r.text, CLAUDE_DENY_RULES, r.created).empty, true);
  const original = '{\n  "model": "opus",\n  "permissions": {\n    "allow": []\n  }\n}\n';
  const merged = addDenyRules(F, original, CLAUDE_DENY_RULES);
  assert.deepEqual(merged.created, ['permissions.deny']);
  assert.equal(removeDenyRules(F, merged.text, merged.added, merged.created).text, original, 'back to the same bytes');
  const bare = '{\n  "model": "opus"\n}\n';
  const m2 = addDenyRules(F, bare, CLAUDE_DENY_RULES);
  assert.equal(removeDenyRules(F, m2.text, m2.added, m2.created).text, bare);
});
