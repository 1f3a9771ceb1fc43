import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Test helpers for transaction bundles (not a test file itself). */
export const sha = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');

export interface WriteSpec {
  path: string;
  mode: 'create' | 'replace' | 'delete' | 'move';
  content?: string;
  to?: string;
}

/** Build a bundle object whose expected_hashes are read from the vault as it is now. */
export function makeBundle(root: string, op: string, writes: WriteSpec[], type = 'generic', reads: Record<string, string> = {}) {
  const expected: Record<string, string | null> = {};
  const cur = (p: string) => {
    const abs = path.join(root, p);
    return fs.existsSync(abs) ? sha(fs.readFileSync(abs)) : null;
  };
  for (const w of writes) {
    expected[w.path] = cur(w.path);
    if (w.to) expected[w.to] = cur(w.to);
  }
  return {
    schema: 'vaultgate.transaction.v1',
    operation_id: op,
    operation_type: type,
    writes: writes.map((w) => ({ path: w.path, mode: w.mode, ...(w.content !== undefined ? { content: w.content } : {}), ...(w.to ? { to: w.to } : {}) })),
    expected_hashes: expected,
    read_preconditions: reads,
  };
}

export function writeBundleFile(dir: string, bundle: unknown, name = 'bundle.json'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof bundle === 'string' ? bundle : JSON.stringify(bundle));
  return file;
}

/** Every file and folder under root (skipping .vaultgate) as path → "mode:sha" / "dir"; dot-files included. */
export function vaultImage(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (rel === '' && e.name === '.vaultgate') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      const abs = path.join(dir, e.name);
      if (e.isSymbolicLink()) out[r] = `symlink:${fs.readlinkSync(abs)}`;
      else if (e.isDirectory()) {
        out[r + '/'] = 'dir';
        walk(abs, r);
      } else out[r] = `${(fs.statSync(abs).mode & 0o7777).toString(8)}:${sha(fs.readFileSync(abs))}`;
    }
  };
  walk(root, '');
  return out;
}

/**
 * Leave an operation interrupted right after the first mutating step that matches
 * `when` (a crash, as from SIGKILL), then drop its lock as the dying process would.
 * Returns after the crash; the operation is pending in the vault.
 */
export async function crashAfter(root: string, bundleObj: unknown, when: (op: string, args: unknown[]) => boolean) {
  const txn = await import('../../../src/txn/index.js');
  const bundle = txn.parseBundle(Buffer.from(JSON.stringify(bundleObj)), { baseDir: root });
  const approval = txn.inspectBundle(root, bundle).approval_sha256;
  let target = 0;
  const ops = txn.faultyFsOps({
    atStep: Number.MAX_SAFE_INTEGER,
    kind: 'crash',
    afterStep: (n, op, args) => {
      if (!target && when(op, args)) {
        target = n + 1;
        throw new txn.SimulatedCrash(`crash after step ${n}`);
      }
    },
  });
  await assertRejects(() => txn.applyBundle(root, bundle, approval, { ops }));
  for (const name of fs.readdirSync(path.join(root, '.vaultgate'))) {
    if (name === 'lock' || name.startsWith('.lock-')) fs.rmSync(path.join(root, '.vaultgate', name), { recursive: true, force: true });
  }
  return { approval, bundle };
}

async function assertRejects(fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch {
    return;
  }
  throw new Error('expected the apply to crash');
}
