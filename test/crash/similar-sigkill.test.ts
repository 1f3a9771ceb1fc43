/**
 * Embedding is resumable across a real crash: the CLI embeds through a fake
 * provider that answers the first batch and then hangs; the test SIGKILLs the
 * process while it waits. The next run sends only what the first did not
 * store, and finishes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { startFakeProvider, type ReceivedRequest } from '../helpers/fake-provider.js';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

test('similar --provider: SIGKILL in the middle of embedding keeps the batches already stored; the next run sends only the rest', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 12; i++) files[`n/note ${i}.md`] = `# Note ${i}\n\nWords about topic ${i % 3} number ${i}.\n`;
  const { root, home } = tempVault(files);
  const p = await startFakeProvider();
  try {
    fs.mkdirSync(path.join(home, 'config'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'config.yaml'), JSON.stringify({ providers: { local: { kind: 'ollama', url: p.url, embed_model: 'toy', batch_size: 4, attempts: 1, timeout_ms: 600000 } } }));
    const vector = (t: string) => [t.length % 7, t.length % 5, 1];
    let calls = 0;
    let second: () => void = () => {};
    const secondArrived = new Promise<void>((resolve) => (second = resolve));
    p.reply((req: ReceivedRequest) => {
      calls++;
      if (calls === 2) {
        second();
        return { hang: true, body: null };
      }
      return { body: { embeddings: (req.json.input as string[]).map(vector) } };
    });
    const child = spawn(process.execPath, [CLI_BIN, '--vault', root, 'similar', 'n/note 0.md', '--provider', 'local'], { env: { ...process.env, VAULTGATE_HOME: home }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await secondArrived;
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const firstBatch = p.requests[0]!.json.input as string[];
    assert.equal(firstBatch.length, 4);

    p.reply((req: ReceivedRequest) => ({ body: { embeddings: (req.json.input as string[]).map(vector) } }));
    const before = p.requests.length;
    const r = await runCliProcess(['similar', 'n/note 0.md', '--provider', 'local'], { vault: root, home });
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    const resent = p.requests.slice(before).flatMap((q) => q.json.input as string[]);
    assert.equal(resent.length, 12 - 4, 'the stored batch is not sent again');
    assert.ok(firstBatch.every((t) => !resent.includes(t)));
    assert.equal(r.json.vectors.notes, 12);
  } finally {
    await p.close();
  }
});
