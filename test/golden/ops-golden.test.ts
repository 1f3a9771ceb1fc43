/**
 * Every operation's JSON output on the demo vault, pinned as a golden file
 * (test/golden/ops/<case>.json), so no face and no refactor changes the
 * documented output without a reviewed diff. Regenerate after an intended
 * change with `UPDATE_GOLDEN=1 VAULTGATE_TEST_FILTER=golden npm test` and read
 * the diff.
 *
 * Outputs are normalised where they cannot be stable: temporary paths, times,
 * the vault id (it depends on the inode of the copy) and what is derived from
 * it (approval hashes), git commit ids.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { OPERATIONS } from '../../src/ops/index.js';
import { CLI_BIN, REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-vault.js';

const GOLDEN_DIR = path.join(REPO_ROOT, 'test/golden/ops');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface Case {
  /** Golden file name. */
  name: string;
  /** The operation it pins (every operation must have at least one case). */
  op: string;
  argv: string[];
  exit?: number;
}

function cases(bundle: string, opId: string): Case[] {
  return [
    { name: 'search', op: 'search', argv: ['search', 'how does the robber work', '--limit', '3'] },
    { name: 'search-filters', op: 'search', argv: ['search', 'sourdough', '--path', 'Wiki/', '--limit', '2'] },
    { name: 'context', op: 'context', argv: ['context', 'How many cards do I discard on a 7?', '--budget-chars', '3000'] },
    { name: 'context-markdown', op: 'context', argv: ['context', 'sourdough starter', '--format', 'markdown', '--json', '--budget-chars', '2000'] },
    { name: 'note', op: 'note', argv: ['note', 'Home.md'] },
    { name: 'note-heading', op: 'note', argv: ['note', 'Games/Catan/Rules.md', '--heading', 'The robber on a 7'] },
    { name: 'note-window', op: 'note', argv: ['note', 'Games/Catan/Rules.md', '--max-chars', '300'] },
    { name: 'resolve', op: 'resolve', argv: ['resolve', '[[Rules]]', '--from', 'Games/Catan/Strategy.md'] },
    { name: 'resolve-from-root', op: 'resolve', argv: ['resolve', '[[Sourdough#^starter-ratio]]'] },
    { name: 'links', op: 'links', argv: ['links', 'Journal/2026-11-28.md'] },
    { name: 'backlinks', op: 'backlinks', argv: ['backlinks', 'Wiki/Cooking/Sourdough.md'] },
    { name: 'check', op: 'check', argv: ['check'] },
    { name: 'similar', op: 'similar', argv: ['similar', 'Work/Decisions.md', '--include-linked', '--limit', '3'] },
    { name: 'similar-to', op: 'similar', argv: ['similar', 'Work/Decisions.md', '--to', 'Projects/vaultgate/Decisions.md'] },
    { name: 'similar-duplicates', op: 'similar', argv: ['similar', '--duplicates'] },
    { name: 'files', op: 'files', argv: ['files'] },
    { name: 'files-hash', op: 'files', argv: ['files', 'Attachments/vault-map.png', '--hash'] },
    { name: 'index', op: 'index', argv: ['index'] },
    { name: 'error-usage', op: 'search', argv: ['search', '   '], exit: 2 },
    { name: 'tx-inspect', op: 'tx_inspect', argv: ['tx', 'inspect', bundle] },
    { name: 'tx-status', op: 'tx_status', argv: ['tx', 'status'] },
    { name: 'init', op: 'init', argv: ['init'] },
    { name: 'tx-apply', op: 'tx_apply', argv: ['tx', 'apply', bundle, '--approval', '<approval>'] },
    { name: 'checkpoint', op: 'checkpoint', argv: ['checkpoint', opId, '--message', 'golden'] },
    { name: 'undo', op: 'undo', argv: ['undo', opId] },
    { name: 'tx-recover', op: 'tx_recover', argv: ['tx', 'recover'] },
    { name: 'tx-resolve-unknown', op: 'tx_resolve', argv: ['tx', 'resolve', 'no-such-op', '--keep-current'], exit: 2 },
    { name: 'context-scenario', op: 'context', argv: ['context', 'feedback loops and leverage', '--scenario', 'books'] },
    { name: 'context-scenario-markdown', op: 'context', argv: ['context', 'pancakes', '--scenario', 'cooking', '--format', 'markdown', '--json'] },
    { name: 'scenario-list', op: 'scenario_list', argv: ['scenario', 'list'] },
    { name: 'scenario-show', op: 'scenario_show', argv: ['scenario', 'show', 'books'] },
    { name: 'scenario-check', op: 'scenario_check', argv: ['scenario', 'check', 'books'] },
    { name: 'scenario-unknown', op: 'scenario_show', argv: ['scenario', 'show', 'nope'], exit: 2 },
    { name: 'state-get-new', op: 'state_get', argv: ['state', 'get', 'golden'] },
    { name: 'state-patch', op: 'state_patch', argv: ['state', 'patch', 'golden', '--revision', '0', '--patch-file', '<patch>'] },
    { name: 'state-get', op: 'state_get', argv: ['state', 'get', 'golden'] },
    { name: 'state-patch-stale', op: 'state_patch', argv: ['state', 'patch', 'golden', '--revision', '0', '--patch-file', '<patch>'], exit: 75 },
    { name: 'state-list', op: 'state_list', argv: ['state', 'list'] },
    { name: 'state-delete', op: 'state_delete', argv: ['state', 'delete', 'golden', '--revision', '1'] },
    // the proposal loop, after undo put Sourdough.md back to its original bytes
    { name: 'propose', op: 'propose', argv: ['propose', 'Wiki/Cooking/Sourdough.md', '--replace', 'every 12 hours', '--with', 'every 24 hours', '--base', '<base>', '--title', 'Feed less often', '--agent', 'golden'] },
    { name: 'propose-blocked', op: 'propose', argv: ['propose', 'Inbox/New idea.md', '--content', '# New idea\n\nSee [[Rules]] and [[Sourdough#Nowhere]] and [[Someday]].\n', '--base', 'none'] },
    { name: 'propose-scenario', op: 'propose', argv: ['propose', 'Books/Dune.md', '--content', '---\ntags: [books]\n---\n# Dune (novel)\n', '--base', 'none', '--scenario', 'books'] },
    { name: 'propose-stale', op: 'propose', argv: ['propose', 'Home.md', '--append', '--content', 'x', '--base', '0'.repeat(64)], exit: 75 },
    { name: 'review', op: 'review', argv: ['review', 'p-1'] },
    { name: 'show', op: 'show', argv: ['show', 'p-2'] },
    { name: 'apply', op: 'apply', argv: ['apply', 'p-1', '--review-hash', '<review_hash>'] },
    { name: 'apply-unknown', op: 'apply', argv: ['apply', 'p-99', '--review-hash', 'a'.repeat(64)], exit: 2 },
    { name: 'rollback', op: 'rollback', argv: ['rollback', 'p-1'] },
    { name: 'decline', op: 'decline', argv: ['decline', 'p-2', '--reason', 'links need fixing'] },
    { name: 'reopen', op: 'reopen', argv: ['reopen', 'p-2'] },
    { name: 'proposals', op: 'proposals', argv: ['proposals'] },
    { name: 'log', op: 'log', argv: ['log', '--limit', '4'] },
    { name: 'skill-install', op: 'skill_install', argv: ['skill', 'install', '--home', path.join(path.dirname(bundle), 'user-home'), '--guard'] },
    { name: 'skill-uninstall', op: 'skill_uninstall', argv: ['skill', 'uninstall', '--home', path.join(path.dirname(bundle), 'user-home')] },
    { name: 'relate-prepare', op: 'relate_prepare', argv: ['relate', 'prepare', 'Work/Decisions.md', 'Projects/vaultgate/Decisions.md'] },
    { name: 'relate-validate', op: 'relate_validate', argv: ['relate', 'validate', '<catalog>', '<answer>'] },
    { name: 'plan', op: 'plan', argv: ['plan', '<catalog>', '--recommendation', '0'] },
    { name: 'relate-validate-refused', op: 'relate_validate', argv: ['relate', 'validate', '<catalog>', '<bad-answer>'], exit: 2 },
    { name: 'relate-send-unknown-provider', op: 'relate_send', argv: ['relate', 'send', '<catalog>', '--provider', 'nope'], exit: 2 },
    { name: 'consent-list', op: 'consent_list', argv: ['consent', 'list'] },
    { name: 'consent-pending', op: 'consent_pending', argv: ['consent', 'pending'] },
    // no terminal here (and no such request): approving needs the person; a decision on an unknown request is NOT_FOUND
    { name: 'consent-approve-unknown', op: 'consent_approve', argv: ['consent', 'approve', 'cr-000000000000'], exit: 2 },
    { name: 'consent-deny-unknown', op: 'consent_deny', argv: ['consent', 'deny', 'cr-000000000000'], exit: 2 },
    { name: 'verify', op: 'verify', argv: ['verify', '<verify-answer>'] },
    // links survive every write (issue #12): a snapshot, a rename whose links follow it, a heading
    // rename, a note that would steal links (blocked), and the baseline after the rename
    // (named so the MCP schema test does not take it for the links tool's output: --snapshot is CLI-only)
    { name: 'snapshot-links', op: 'links', argv: ['links', '--snapshot', 'links.json'] },
    { name: 'propose-rename', op: 'propose', argv: ['propose', '--rename', 'Wiki/Cooking/Pancakes.md', 'Crêpes', '--base', '<sha:Wiki/Cooking/Pancakes.md>'] },
    { name: 'apply-rename', op: 'apply', argv: ['apply', '<rename-id>', '--review-hash', '<rename-hash>'] },
    { name: 'propose-rename-heading', op: 'propose', argv: ['propose', '--rename-heading', 'Games/Catan/Rules.md', 'The robber on a 7', 'Rolling a seven', '--base', '<sha:Games/Catan/Rules.md>'] },
    { name: 'propose-move-folder', op: 'propose', argv: ['propose', '--move', 'Games/Catan/', 'Boardgames/Catan/'] },
    { name: 'propose-steals-links', op: 'propose', argv: ['propose', 'Rules.md', '--content', '# House rules\n', '--base', 'none'] },
    { name: 'check-links-baseline', op: 'check', argv: ['check', '--links-baseline', 'links.json'] },
    // atomize (issue 24): the typed error every step gives for a folder that is not a work folder
    ...['init', 'chunk', 'extract', 'tidy', 'write', 'strip', 'check', 'promote', 'status'].map((verb) => ({
      name: `atomize-${verb}-no-work`,
      op: `atomize_${verb}`,
      argv: ['atomize', verb, ...(verb === 'init' ? ['no-such-book.md'] : []), '--work', 'no-such-work', ...(verb === 'extract' ? ['--provider', 'ollama'] : [])],
      exit: 2,
    })),
    // ingest (issue 22 §3): a source read relative to the working folder (the vault's parent here); the drop folder (absent in the demo vault)
    { name: 'ingest', op: 'ingest', argv: ['ingest', 'vault/Inbox/Quick capture.md', '--into', 'Wiki'] },
    { name: 'ingest-list', op: 'ingest', argv: ['ingest', '--list'] },
  ];
}

/** Replace what differs from run to run with stable placeholders. */
function normalise(value: unknown, base: string, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v, base));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, base, k)]));
  }
  if (typeof value === 'number' && key.endsWith('_ms')) return 0;
  if (typeof value !== 'string') return value;
  if (key === 'vault_id') return '<vault-id>';
  if (key === 'approval_sha256') return '<approval>';
  if (key === 'review_hash') return '<review-hash>';
  if (key === 'commit') return '<commit>';
  if (key === 'catalog_id') return '<catalog>';
  if (key === 'nonce') return '<nonce>';
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(value)) return '<time>';
  return value
    .split(base)
    .join('<tmp>')
    .replace(/\b(proposal-p-\d+)-[0-9a-f]{8}\b/g, '$1-<nonce>')
    .replace(/\b[0-9a-f]{8}:([AB]):/g, '<nonce>:$1:')
    .replace(/cat-[0-9a-f]{16}/g, '<catalog>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<vault-id>');
}

test('golden: every operation has a golden case', () => {
  const covered = new Set(cases('', '').map((c) => c.op));
  const missing = OPERATIONS.map((op) => op.name).filter((name) => !covered.has(name));
  assert.deepEqual(missing, [], 'add a case for each new operation');
});

test('golden: every operation’s JSON output on the demo vault matches its golden file', async () => {
  const base = tempDir();
  const vault = path.join(base, 'vault');
  const home = path.join(base, 'home');
  fs.cpSync(path.join(REPO_ROOT, 'examples/demo-vault'), vault, { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'examples/scenarios'), path.join(home, 'config', 'scenarios'), { recursive: true });
  const patch = path.join(base, 'patch.json');
  fs.writeFileSync(patch, JSON.stringify({ step: 1, seen: ['Books/Thinking in Systems.md'], draft: { title: 'Quotes' } }));
  execFileSync('git', ['init', '-q', vault]);
  execFileSync('git', ['-C', vault, '-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '-A']);
  execFileSync('git', ['-C', vault, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base']);
  const target = 'Wiki/Cooking/Sourdough.md';
  const old = fs.readFileSync(path.join(vault, target));
  const opId = 'golden-1';
  const bundle = path.join(base, 'bundle.json');
  fs.writeFileSync(
    bundle,
    JSON.stringify({
      schema: 'vaultgate.transaction.v1',
      operation_id: opId,
      operation_type: 'note',
      writes: [{ path: target, mode: 'replace', content: `${old.toString('utf8')}\nA line added by the golden test.\n` }],
      expected_hashes: { [target]: crypto.createHash('sha256').update(old).digest('hex') },
    }),
  );
  // `vaultgate` on PATH (as after `npm link`), so skill install's command check gives the same answer on every machine
  const bin = path.join(base, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'vaultgate'), `#!/bin/sh\nexec '${process.execPath}' '${CLI_BIN}' "$@"\n`, { mode: 0o755 });
  const env = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', PATH: `${bin}:${process.env.PATH ?? ''}` };
  let approval = '';
  let catalog = '';
  const answer = path.join(base, 'answer.json');
  const badAnswer = path.join(base, 'bad-answer.json');
  const verifyAnswer = path.join(base, 'verify-answer.json');
  fs.writeFileSync(
    verifyAnswer,
    JSON.stringify({
      claims: [
        { text: 'approvals go by hash', evidence: [{ path: 'Work/Decisions.md', lines: [8, 9], quote: 'Approvals are by commit hash' }] },
        { text: 'on-call starts on Monday', evidence: [{ path: 'Work/Decisions.md', lines: [8, 9], quote: 'starts on Tuesday' }, { path: 'Work/Decisions.md', lines: [8, 9], quote: 'starts on Monday' }] },
      ],
    }),
  );
  let reviewHash = '';
  let renameId = '';
  let renameHash = '';
  fs.mkdirSync(GOLDEN_DIR, { recursive: true });
  const mismatches: string[] = [];
  for (const c of cases(bundle, opId)) {
    const filled: Record<string, string> = { '<approval>': approval, '<patch>': patch, '<review_hash>': reviewHash, '<catalog>': catalog, '<answer>': answer, '<bad-answer>': badAnswer, '<verify-answer>': verifyAnswer, '<rename-id>': renameId, '<rename-hash>': renameHash };
    // `<sha:PATH>`: the hash of that file in the vault as it is at this case
    const shaOf = (rel: string) => crypto.createHash('sha256').update(fs.readFileSync(path.join(vault, rel))).digest('hex');
    const argv = c.argv.map((a) => (a === '<base>' ? crypto.createHash('sha256').update(old).digest('hex') : a.startsWith('<sha:') ? shaOf(a.slice(5, -1)) : (filled[a] ?? a)));
    const r = await runCli(['--vault', vault, ...argv], { home, env, cwd: base });
    assert.equal(r.exitCode, c.exit ?? 0, `${c.name}: ${r.stdout}${r.stderr}`);
    assert.ok(r.json, `${c.name}: stdout is one JSON document`);
    if (c.name === 'tx-inspect') approval = r.json.approval_sha256;
    if (c.name === 'relate-prepare') {
      catalog = r.json.catalog_id;
      const id = (side: string, n: number) => r.json.fragments.filter((f: { side: string }) => f.side === side)[n].id;
      const rec = { kind: 'link_a_to_b', claim: 'The review policy is what the vaultgate decision on agent writes cites', evidence_a: [id('A', 1)], evidence_b: [id('B', 3)], anchor: id('A', 1) };
      fs.writeFileSync(answer, JSON.stringify({ version: 'vaultgate.relation.v1', recommendations: [rec] }));
      fs.writeFileSync(badAnswer, JSON.stringify({ version: 'vaultgate.relation.v1', recommendations: [{ ...rec, evidence_a: [id('B', 0)], anchor: 'nope' }] }));
    }
    if (c.name === 'review') reviewHash = r.json.review_hash;
    if (c.name === 'propose-rename') [renameId, renameHash] = [r.json.proposal.id, r.json.review.review_hash];
    const actual = JSON.stringify(normalise(r.json, base), null, 2) + '\n';
    const file = path.join(GOLDEN_DIR, `${c.name}.json`);
    if (UPDATE) {
      fs.writeFileSync(file, actual);
      continue;
    }
    if (!fs.existsSync(file)) mismatches.push(`${c.name} (no golden file)`);
    else if (fs.readFileSync(file, 'utf8') !== actual) mismatches.push(c.name);
  }
  assert.deepEqual(mismatches, [], 'JSON output changed; if intended, regenerate with UPDATE_GOLDEN=1 and review the diff');
});
