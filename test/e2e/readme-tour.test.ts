/**
 * The README's five-minute tour, run line by line as written: a tour command
 * that fails, or a search that finds nothing, fails here rather than in front of
 * a new user. The tour must work on a copy (its `cp -r examples/demo-vault X`
 * and `export VAULTGATE_VAULT=X` lines); the test makes that copy in a temp
 * folder and checks the repo's demo vault is byte-identical afterwards. Only
 * `<hash>` and `<operation_id>` are filled in, from the output of the line that
 * printed them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { snapshotTree, tempDir } from '../helpers/temp-vault.js';

/** The tour's shell block, comments dropped, each line split as sh would split it. */
function tourLines(): string[][] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('## Five-minute tour'));
  const block = /```sh\n([\s\S]*?)```/.exec(tour)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => shellWords(line.replace(/\s+#.*$/, '')))
    .filter((words) => words.length > 0);
}

/** Words of a command line with '…' quoting, the only quoting the tour uses. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

test('README tour: it works on a copy, every command runs on it, and the read commands find something', async () => {
  const lines = tourLines();
  const copy = lines.find((w) => w[0] === 'cp' && w.includes('examples/demo-vault'));
  assert.ok(copy, 'the tour starts by copying the demo vault');
  const target = copy[copy.length - 1]!;
  assert.ok(lines.some((w) => w[0] === 'export' && w[1] === `VAULTGATE_VAULT=${target}`), 'the tour points VAULTGATE_VAULT at the copy');
  assert.ok(!path.resolve(REPO_ROOT, target).startsWith(REPO_ROOT + path.sep), 'the copy is outside the repo');

  const before = snapshotTree(path.join(REPO_ROOT, 'examples'), { includeHidden: true });
  const base = tempDir();
  const vault = path.join(base, 'vault');
  fs.cpSync(path.join(REPO_ROOT, 'examples/demo-vault'), vault, { recursive: true });
  const home = path.join(base, 'home');
  const commands = lines.filter((w) => w[0] === 'vaultgate').map((w) => w.slice(1));
  assert.ok(commands.length >= 8, `the tour lists ${commands.length} commands`);

  const filled: Record<string, string> = {};
  for (const args of commands) {
    const argv = args.map((a) => (/^<[a-z0-9_]+>$/.test(a) ? (filled[a] ?? assert.fail(`${a} is used before a command printed it`)) : a));
    const r = await runCli(argv, { home, env: { VAULTGATE_VAULT: vault }, cwd: REPO_ROOT });
    const shown = `vaultgate ${args.join(' ')}`;
    assert.equal(r.exitCode, 0, `${shown}: ${r.stdout}${r.stderr}`);
    if (r.json?.approval_sha256) filled['<hash>'] = r.json.approval_sha256;
    if (r.json?.operation_id && args[0] === 'tx') filled['<operation_id>'] = r.json.operation_id;
    if (typeof r.json?.sha256 === 'string') filled['<sha256>'] = r.json.sha256;
    if (r.json?.proposal?.id && args[0] === 'propose') filled['<id>'] = r.json.proposal.id;
    if (r.json?.review_hash) filled['<review_hash>'] = r.json.review_hash;
    if (args[0] === 'search') assert.ok(r.json.total > 0, `${shown} finds nothing`);
    if (args.includes('--format') && args.includes('markdown')) assert.match(r.stdout, /^# Context packet from vaultgate/, shown);
    else if (args[0] === 'context') assert.ok(r.json.total > 0, `${shown} finds nothing`);
  }
  assert.ok(filled['<hash>'], 'the tour inspects a bundle');
  // The proposal loop: the change landed by its review hash, and its rollback waits for review.
  assert.ok(fs.readFileSync(path.join(vault, 'Wiki/Cooking/Sourdough.md'), 'utf8').includes('every 24 hours'));
  const queue = await runCli(['proposals'], { home, env: { VAULTGATE_VAULT: vault } });
  assert.deepEqual(queue.json.proposals.map((p: { state: string; origin: string }) => [p.origin, p.state]), [['rollback', 'pending'], ['propose', 'applied']]);
  // The tour ends with undo: the note the bundle created is gone again; the repo's examples never changed.
  assert.equal(fs.existsSync(path.join(vault, 'Wiki/Cooking/Rye bread.md')), false);
  assert.deepEqual(snapshotTree(path.join(REPO_ROOT, 'examples'), { includeHidden: true }), before);
});
