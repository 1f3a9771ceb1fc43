import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { withEngine, type EngineOptions } from './engine.js';
import { readDone } from './history.js';
import { abs } from './layout.js';
import { resolveTarget } from './vault-state.js';

/**
 * `checkpoint OP`: one explicit git commit of exactly the bytes OP wrote, with the
 * user's own git identity. Never automatic. The blobs are built from bytes read
 * and hash-checked here (not `git add` of whatever is on disk a moment later),
 * and a git index that already has staged changes is refused, so the commit
 * contains OP and nothing else.
 */
export interface CheckpointResult {
  operation_id: string;
  commit: string | null;
  paths: string[];
  nothing_to_commit: boolean;
}

function git(cwd: string, args: string[], input?: Buffer): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, input, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) {
    throw new VaultgateError('GIT_FAILED', `could not run git: ${r.error.message}`, { hint: 'Install git, or commit by hand.' });
  }
  return { status: r.status ?? 1, stdout: r.stdout.toString('utf8').trim(), stderr: r.stderr.toString('utf8').trim() };
}

function must(r: { status: number; stdout: string; stderr: string }, what: string): string {
  if (r.status !== 0) throw new VaultgateError('GIT_FAILED', `git ${what} failed: ${r.stderr || r.stdout}`, { hint: 'Fix the git problem shown, then run the checkpoint again.' });
  return r.stdout;
}

export async function checkpointOperation(root: string, op: string, opts: EngineOptions & { message?: string } = {}): Promise<CheckpointResult> {
  return withEngine(root, opts, async (ops) => {
    const rec = readDone(root, op, ops);
    if (!rec || rec.outcome !== 'applied') {
      throw new VaultgateError('OPERATION_UNKNOWN', `no applied operation ${op}`, { hint: '`vaultgate tx status` and .vaultgate/txn/history.jsonl list operations.' });
    }
    const top = git(root, ['rev-parse', '--show-toplevel']);
    if (top.status !== 0) {
      throw new VaultgateError('GIT_FAILED', `the vault is not inside a git repository`, { hint: 'Run `git init` in the vault first, or skip checkpoints.' });
    }
    const repo = top.stdout;
    if (git(repo, ['diff', '--cached', '--quiet']).status !== 0) {
      throw new VaultgateError('GIT_INDEX_DIRTY', 'the git index already has staged changes', {
        hint: 'Commit or unstage them (`git restore --staged .`), then run `vaultgate checkpoint` again.',
      });
    }
    const repoRel = (rel: string) => path.relative(repo, abs(root, rel)).split(path.sep).join('/');
    const present = (rel: string, want: string, mode: number | null) => {
      const t = resolveTarget(root, rel, ops);
      const bytes = t.exists ? ops.readFile(abs(root, t.disk)) : null;
      if (!bytes || sha256Hex(bytes) !== want) {
        throw new VaultgateError('STALE_HASH', `${rel} no longer holds what ${op} wrote`, {
          path: rel,
          hint: 'A checkpoint commits only the exact bytes of the operation; commit later edits with git yourself.',
        });
      }
      const blob = must(git(repo, ['hash-object', '-w', '--stdin'], bytes), 'hash-object');
      must(git(repo, ['update-index', '--add', '--cacheinfo', `${(mode ?? 0o644) & 0o111 ? '100755' : '100644'},${blob},${repoRel(t.disk)}`]), 'update-index');
    };
    const absent = (rel: string) => {
      const t = resolveTarget(root, rel, ops);
      if (t.exists) throw new VaultgateError('STALE_HASH', `${rel} exists again since ${op} removed it`, { path: rel });
      must(git(repo, ['update-index', '--force-remove', '--', repoRel(t.disk)]), 'update-index');
    };
    for (const w of rec.writes) {
      if (w.mode === 'create' || w.mode === 'replace') present(w.path, w.new_sha256!, w.new_mode);
      else if (w.mode === 'delete') absent(w.path);
      else (absent(w.path), present(w.to!, w.old_sha256!, w.old_mode));
    }
    if (git(repo, ['diff', '--cached', '--quiet']).status === 0) {
      return { operation_id: op, commit: null, paths: rec.changed_paths, nothing_to_commit: true };
    }
    const message = opts.message ?? `vaultgate: ${op} (${rec.operation_type})\n\nChanged: ${rec.changed_paths.join(', ')}`;
    const c = git(repo, ['commit', '-q', '-m', message]);
    if (c.status !== 0) {
      git(repo, ['reset', '-q']); // unstage what we staged, so the index is as the user left it
      must(c, 'commit');
    }
    return { operation_id: op, commit: must(git(repo, ['rev-parse', 'HEAD']), 'rev-parse'), paths: rec.changed_paths, nothing_to_commit: false };
  });
}
