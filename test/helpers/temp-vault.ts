import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
let cleanupRegistered = false;

/**
 * Memory-backed scratch space when the machine has one (/dev/shm): for tests that
 * prove logic with many files (races, rollbacks of 1,000 writes), where an fsync per
 * file on a shared disk would only make them slow. Durability is tested on disk
 * (test/crash/).
 */
const SHM = fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').isDirectory() ? '/dev/shm' : null;

/**
 * A fresh temporary folder, removed when the test process exits. Not a
 * node:test `after` hook: registered from inside a test, that hook belongs to
 * the test and would delete folders other files made at import time.
 */
export function tempDir(prefix = 'vaultgate-test-', opts: { tmpfs?: boolean } = {}): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(opts.tmpfs && SHM ? SHM : os.tmpdir(), prefix)));
  made.push(dir);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.on('exit', () => {
      if (process.env.VAULTGATE_KEEP_TEMP) return;
      for (const d of made) fs.rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/**
 * Create a vault from `{relativePath: content}`; a Buffer is written as bytes.
 * Returns the vault root (a real path) and a VAULTGATE_HOME beside it.
 * `tmpfs: true` puts it in memory when the machine has /dev/shm.
 */
export function tempVault(files: Record<string, string | Buffer> = {}, opts: { tmpfs?: boolean } = {}): { root: string; home: string } {
  const base = tempDir('vaultgate-test-', opts);
  const root = path.join(base, 'vault');
  const home = path.join(base, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(home);
  writeFiles(root, files);
  return { root, home };
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
}

/** Every file under a folder as {path: bytes-as-hex-or-text}, for before/after comparisons. */
export function snapshotTree(root: string, opts: { includeHidden?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!opts.includeHidden && e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      const abs = path.join(dir, e.name);
      if (e.isSymbolicLink()) out[r] = `symlink:${fs.readlinkSync(abs)}`;
      else if (e.isDirectory()) {
        out[r + '/'] = `dir:${(fs.statSync(abs).mode & 0o777).toString(8)}`;
        walk(abs, r);
      } else out[r] = `${(fs.statSync(abs).mode & 0o777).toString(8)}:${fs.readFileSync(abs).toString('base64')}`;
    }
  };
  walk(root, '');
  return out;
}
