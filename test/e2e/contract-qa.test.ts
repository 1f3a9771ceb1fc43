import crypto from 'node:crypto';
/**
 * Contract points the issues spell out that the faces once missed (found by the
 * contract QA pass, /work/qa-report.md), each through the real compiled binary:
 * - `resolve LINK` without `--from` (issue 13 runs `resolve '[[T#^para-id]]'`
 *   bare): resolved as written in a note at the vault root;
 * - the MCP tools that take a JSON document (`state_patch.patch`,
 *   `propose.changes`) accept the document itself, as MCP clients send
 *   arguments, as well as its text.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

test('resolve without --from resolves from the vault root; an explicit --from still decides ties', async () => {
  const { root, home } = tempVault({
    'T.md': '# T\n\nPara text line one\ncontinues here\n^para-id\n',
    'A/Rules.md': '# A rules\n',
    'B/Rules.md': '# B rules\n',
    'A/Home.md': 'see [[Rules]]\n',
  });
  const bare = await runCliProcess(['resolve', '[[T#^para-id]]', '--json'], { vault: root, home });
  assert.equal(bare.exitCode, 0, bare.stdout + bare.stderr);
  assert.equal(bare.json.from, '');
  assert.equal(bare.json.status, 'resolved');
  assert.equal(bare.json.target, 'T.md');
  assert.deepEqual(bare.json.subpath, { kind: 'block', value: 'para-id', exists: true, lines: [3, 5] });

  // From the root, two same-name notes in sibling folders tie; from A/ the own folder wins.
  const tie = await runCliProcess(['resolve', 'Rules', '--json'], { vault: root, home });
  assert.equal(tie.json.status, 'ambiguous');
  const own = await runCliProcess(['resolve', 'Rules', '--from', 'A/Home.md', '--json'], { vault: root, home });
  assert.equal(own.json.target, 'A/Rules.md');

  const missing = await runCliProcess(['resolve', 'Rules', '--from', 'Nope.md', '--json'], { vault: root, home });
  assert.equal(missing.exitCode, 2);
  assert.equal(missing.json.error.code, 'NOT_FOUND');
});

/** One MCP session over raw JSON-RPC lines: send requests, collect the answers by id. */
async function mcpSession(root: string, home: string, calls: Array<{ name: string; arguments: object }>): Promise<any[]> {
  const child = spawn(process.execPath, [CLI_BIN, 'mcp', '--vault', root], { env: { ...process.env, VAULTGATE_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = '';
  const answers = new Map<number, any>();
  const waiters = new Map<number, () => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      answers.set(msg.id, msg);
      waiters.get(msg.id)?.();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const request = (id: number, method: string, params: object) => {
    const answered = new Promise<void>((resolve) => waiters.set(id, resolve));
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return answered.then(() => answers.get(id));
  };
  await request(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract-qa', version: '0' } });
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const results: any[] = [];
  // In order: each call may depend on the one before (a revision).
  for (const [i, call] of calls.entries()) results.push(await request(i + 1, 'tools/call', call));
  child.stdin.end();
  assert.equal(await exited, 0);
  return results;
}

test('mcp: state_patch and propose take their JSON document as an object or as text', async () => {
  const { root, home } = tempVault({ 'Home.md': '# Home\n' });
  const [asObject, asText, badType, proposeObject, proposeText] = await mcpSession(root, home, [
    { name: 'state_patch', arguments: { session: 's', revision: 0, patch: { step: 1, todo: ['a'] } } },
    { name: 'state_patch', arguments: { session: 's', revision: 1, patch: '{"todo":null}' } },
    { name: 'state_patch', arguments: { session: 's', revision: 2, patch: 7 } },
    {
      name: 'propose',
      arguments: { title: 'Two notes', changes: [{ path: 'New.md', action: 'write', content: 'new\n', base: null }] },
    },
    { name: 'propose', arguments: { title: 'As text', changes: JSON.stringify([{ path: 'Other.md', action: 'write', content: 'other\n', base: 'none' }]) } },
  ]);
  assert.equal(asObject.result.isError, undefined, JSON.stringify(asObject));
  assert.deepEqual(asObject.result.structuredContent, { ok: true, session: 's', revision: 1, state: { step: 1, todo: ['a'] } });
  assert.deepEqual(asText.result.structuredContent, { ok: true, session: 's', revision: 2, state: { step: 1 } });
  // Neither an object nor text: a tool error with the CLI's code, never a crash.
  assert.equal(badType.result.isError, true);
  assert.match(badType.result.content[0].text, /"code":"USAGE"/);
  assert.equal(proposeObject.result.structuredContent.ok, true, JSON.stringify(proposeObject));
  assert.equal(proposeObject.result.structuredContent.proposal.title, 'Two notes');
  assert.equal(proposeObject.result.structuredContent.proposal.state, 'pending');
  assert.equal(proposeText.result.structuredContent.proposal.title, 'As text', JSON.stringify(proposeText));
});

test('propose: a reserved path is refused as PATH_RESERVED (exit 2) before its base or its links are looked at', async () => {
  const { root, home } = tempVault({
    'Home.md': '# Home\nSee [[Note]].\n',
    'Note.md': '# Note\n',
    'Folder/A.md': '# A\n',
    '.obsidian/app.json': '{}\n',
  });
  const sha = (await runCliProcess(['note', 'Note.md', '--json'], { vault: root, home })).json.sha256 as string;
  const zeros = '0'.repeat(64);
  const cases: string[][] = [
    // an existing file under .obsidian/ with a base that is not its hash: once STALE_HASH (75)
    ['propose', '.obsidian/app.json', '--content', 'x', '--base', 'none'],
    ['propose', '.obsidian/app.json', '--content', 'x', '--base', zeros],
    // a move into a reserved folder: once LINK_AMBIGUOUS from the link rewriter
    ['propose', '--move', 'Note.md', '.obsidian/Note.md', '--base', sha],
    ['propose', '--rename', 'Note.md', '.trash', '--base', sha],
    ['propose', '--move', 'Folder/', '.git/Folder/'],
  ];
  for (const argv of cases) {
    const r = await runCliProcess([...argv, '--json'], { vault: root, home });
    assert.equal(r.exitCode, 2, `${argv.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.json.error.code, 'PATH_RESERVED', argv.join(' '));
  }
  const listed = await runCliProcess(['proposals', '--json'], { vault: root, home });
  assert.equal(listed.json.total, 0, 'nothing was stored');
});

test('propose --move of an attachment without --base says how to get its hash', async () => {
  const { root, home } = tempVault({ 'Home.md': '![[img/a.png]]\n', 'img/a.png': 'png bytes' });
  const r = await runCliProcess(['propose', '--move', 'img/a.png', 'pics/a.png', '--json'], { vault: root, home });
  assert.equal(r.exitCode, 2);
  assert.equal(r.json.error.code, 'USAGE');
  assert.match(r.json.error.hint, /SHA-256 of its bytes: `vaultgate files 'img\/a.png' --hash`/);
  // …and that command gives the hash the move then accepts
  const h = await runCliProcess(['files', 'img/a.png', '--hash', '--json'], { vault: root, home });
  assert.equal(h.exitCode, 0, h.stdout + h.stderr);
  assert.deepEqual(h.json.files, [{ path: 'img/a.png', size: 9, sha256: crypto.createHash('sha256').update('png bytes').digest('hex') }]);
  const moved = await runCliProcess(['propose', '--move', 'img/a.png', 'pics/a.png', '--base', h.json.files[0].sha256, '--json'], { vault: root, home });
  assert.equal(moved.exitCode, 0, moved.stdout + moved.stderr);
  assert.equal(moved.json.proposal.state, 'pending');
  for (const [path, code] of [['img/b.png', 'NOT_FOUND'], ['../x.png', 'PATH_OUTSIDE_VAULT']] as const) {
    const bad = await runCliProcess(['files', path, '--hash', '--json'], { vault: root, home });
    assert.deepEqual([bad.exitCode, bad.json.error.code], [2, code], path);
  }
  const text = await runCliProcess(['files', 'img/a.png', '--hash', '--text'], { vault: root, home });
  assert.equal(text.stdout.trim(), `${h.json.files[0].sha256}  img/a.png`, 'the text form reads like sha256sum');
});

test('state: revisions count per session (1, 2, …); a session deleted and created again continues above its old revisions', async () => {
  const { root, home } = tempVault({ 'Home.md': '# Home\n' });
  const state = (args: string[], input?: string) => runCliProcess(['state', ...args, '--json'], { vault: root, home, ...(input === undefined ? {} : { input }) });
  assert.equal((await state(['patch', 'a', '--revision', '0'], '{"x":1}')).json.revision, 1);
  // another session's first patch is its own revision 1, whatever the store holds
  assert.equal((await state(['patch', 'b', '--revision', '0'], '{"y":1}')).json.revision, 1);
  assert.equal((await state(['patch', 'a', '--revision', '1'], '{"x":2}')).json.revision, 2);
  assert.deepEqual(
    (await state(['list'])).json.sessions.map((s: any) => [s.session, s.revision]),
    [['a', 2], ['b', 1]],
  );
  assert.equal((await state(['delete', 'a', '--revision', '2'])).json.deleted, true);
  assert.equal((await state(['get', 'a'])).json.revision, 0);
  const again = await state(['patch', 'a', '--revision', '0'], '{"x":3}');
  assert.equal(again.json.revision, 3, 'above every revision the old session had');
  const stale = await state(['patch', 'a', '--revision', '2'], '{"x":4}');
  assert.equal(stale.exitCode, 75);
  assert.equal(stale.json.error.code, 'STATE_STALE');
});

test('propose --delete of a note with backlinks: blocked, unless --allow-shrink (issue 8) or --allow-broken-links (issue 12)', async () => {
  const { root, home } = tempVault({ 'Target.md': '# Target\nSome text.\n', 'A.md': 'see [[Target]]\n', 'B.md': 'and [[Target#Target]]\n' });
  const sha = (await runCliProcess(['note', 'Target.md', '--json'], { vault: root, home })).json.sha256 as string;
  const propose = async (...flags: string[]) => {
    const r = await runCliProcess(['propose', '--delete', 'Target.md', '--base', sha, ...flags, '--json'], { vault: root, home });
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    const failing = r.json.review.checks.filter((c: any) => !c.ok);
    return { state: r.json.proposal.state as string, failing: failing.map((c: any) => `${c.name}/${c.severity}`), messages: failing.map((c: any) => c.message).join(' ') };
  };
  const plain = await propose();
  assert.equal(plain.state, 'blocked');
  assert.deepEqual(plain.failing, ['link_stability/block', 'shrink/block']);
  for (const flag of ['--allow-shrink', '--allow-broken-links']) {
    const allowed = await propose(flag);
    assert.equal(allowed.state, 'pending', flag);
    assert.deepEqual(allowed.failing, ['link_stability/warn', 'shrink/warn'], flag);
    assert.match(allowed.messages, new RegExp(`allowed: the proposal says ${flag}`));
  }
});
