/**
 * `atomize extract` is resumable across a real crash: the CLI child asks a fake
 * chat server chunk by chunk; the server answers two chunks and hangs on the
 * third; the test SIGKILLs the child while it waits. The next run asks only
 * the chunks not settled (the server counts requests and texts), and finishes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BOOK, faithfulModel, userText } from '../helpers/atomize-book.js';
import { startFakeProvider, type ReceivedRequest } from '../helpers/fake-provider.js';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

test('atomize extract: SIGKILL while a chunk is asked keeps the finished chunks; the next run does not ask them again', async () => {
  const { root, home } = tempVault({ 'Books/Ember Rules.md': BOOK });
  const work = path.join(tempDir(), 'work');
  const p = await startFakeProvider();
  try {
    fs.mkdirSync(path.join(home, 'config'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'config.yaml'), JSON.stringify({ providers: { fake: { kind: 'openai', url: `${p.url}/v1`, chat_model: 'm', attempts: 1, timeout_ms: 600000 } } }));
    const cli = (args: string[]) => runCliProcess(args, { vault: root, home });
    assert.equal((await cli(['atomize', 'init', 'Books/Ember Rules.md', '--work', work, '--into', 'Rules'])).exitCode, 0);
    const chunked = await cli(['atomize', 'chunk', '--work', work, '--max-chars', '200']);
    assert.equal(chunked.exitCode, 0, chunked.stdout);
    const total = chunked.json.chunks as number;
    assert.ok(total >= 3, `enough chunks to kill in the middle: ${total}`);

    const faithful = faithfulModel();
    let third: () => void = () => {};
    const thirdArrived = new Promise<void>((resolve) => (third = resolve));
    p.reply((req: ReceivedRequest) => {
      if (p.requests.length === 3) {
        third();
        return { hang: true, body: null };
      }
      return faithful(req);
    });
    const child = spawn(process.execPath, [CLI_BIN, '--vault', root, 'atomize', 'extract', '--work', work, '--provider', 'fake'], { env: { ...process.env, VAULTGATE_HOME: home }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await thirdArrived;
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const settled = fs.readdirSync(path.join(work, 'progress')).filter((f) => f.endsWith('.json'));
    assert.equal(settled.length, 2, 'the two answered chunks are on disk, whole');
    for (const f of settled) assert.equal(JSON.parse(fs.readFileSync(path.join(work, 'progress', f), 'utf8')).status, 'done');
    const status = await cli(['atomize', 'status', '--work', work]);
    assert.deepEqual(
      (({ done, pending, failed }) => ({ done, pending, failed }))(status.json.steps.find((s: any) => s.step === 'extract')),
      { done: 2, pending: total - 2, failed: 0 },
    );

    const asked = p.requests.slice(0, 2).map(userText);
    p.reply(faithful);
    const before = p.requests.length;
    const r = await cli(['atomize', 'extract', '--work', work, '--provider', 'fake']);
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    const again = p.requests.slice(before).map(userText);
    assert.equal(again.length, total - 2, 'only the chunks not settled are asked');
    assert.ok(asked.every((t) => !again.includes(t)), 'no finished chunk is asked again');
    assert.equal(r.json.done, total);
    assert.equal(r.json.skipped, 2);
  } finally {
    await p.close();
  }
});
