import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { unreachable, VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { withEngine, type EngineOptions } from './engine.js';
import type { FsOps } from './fs-ops.js';
import { readDone } from './history.js';
import { abs, isOperationId } from './layout.js';
import { GIT_MAX_OUTPUT_BYTES } from './settings.js';
import { resolveTarget } from './vault-state.js';

/**
 * `checkpoint OP`: one explicit git commit of exactly the bytes OP wrote, with the
 * user's own git identity. Never automatic. The blobs are built from bytes read
 * and hash-checked here (not `git add` of whatever is on disk a moment later), a
 * git index that already has staged changes is refused, and the commit is made
 * with plumbing (`write-tree`, `commit-tree`, `update-ref` with the old HEAD as a
 * compare-and-swap): no hook runs, so nothing can add to the commit or change it,
 * and a HEAD that moved meanwhile is not overwritten. A merge, rebase, cherry-pick
 * or revert in progress is refused (the commit would not be the one git expects).
 */
export interface CheckpointResult {
  operation_id: string;
  commit: string | null;
  paths: string[];
  nothing_to_commit: boolean;
  /** The commit went on a detached HEAD (no branch moved). */
  detached: boolean;
}

interface GitRun {
  status: number;
  stdout: string;
  stderr: string;
}

function git(cwd: string, args: string[], input?: Buffer): GitRun {
  const r = spawnSync('git', args, { cwd, input, encoding: 'buffer', maxBuffer: GIT_MAX_OUTPUT_BYTES });
  if (r.error) {
    throw new VaultgateError('GIT_FAILED', `could not run git: ${r.error.message}`, { hint: 'Install git, or commit by hand.' });
  }
  return { status: r.status ?? 1, stdout: r.stdout.toString('utf8').trim(), stderr: r.stderr.toString('utf8').trim() };
}

function must(r: GitRun, what: string): string {
  if (r.status !== 0) throw new VaultgateError('GIT_FAILED', `git ${what} failed: ${r.stderr || r.stdout}`, { hint: 'Fix the git problem shown, then run the checkpoint again.' });
  return r.stdout;
}

const dirty = (message: string, hint: string) => new VaultgateError('GIT_INDEX_DIRTY', message, { hint });

/**
 * The git repository holding the vault, refused when there is none or when a
 * merge, cherry-pick, revert or rebase is in progress (a checkpoint commits
 * only on a repository at rest).
 */
function idleRepository(root: string, op: string, ops: FsOps): string {
  const top = git(root, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) {
    throw new VaultgateError('GIT_FAILED', `the vault is not inside a git repository`, { hint: 'Run `git init` in the vault first, or skip checkpoints.' });
  }
  const repo = top.stdout;
  for (const [head, what] of [['MERGE_HEAD', 'a merge'], ['CHERRY_PICK_HEAD', 'a cherry-pick'], ['REVERT_HEAD', 'a revert']] as const) {
    if (git(repo, ['rev-parse', '-q', '--verify', head]).status === 0) {
      throw dirty(`${what} is in progress in the git repository`, `Finish or abort ${what} first (\`git status\` says how), then run \`vaultgate checkpoint ${op}\` again.`);
    }
  }
  for (const dir of ['rebase-merge', 'rebase-apply']) {
    const p = must(git(repo, ['rev-parse', '--git-path', dir]), 'rev-parse');
    if (ops.lstat(path.resolve(repo, p))) throw dirty('a rebase is in progress in the git repository', 'Finish or abort the rebase first, then run the checkpoint again.');
  }
  return repo;
}

export async function checkpointOperation(root: string, op: string, opts: EngineOptions & { message?: string } = {}): Promise<CheckpointResult> {
  const unknown = () =>
    new VaultgateError('OPERATION_UNKNOWN', `no applied operation ${JSON.stringify(op)}`, { hint: '`vaultgate tx status` and .vaultgate/txn/history.jsonl list operations.' });
  if (!isOperationId(op)) throw unknown();
  return withEngine(root, opts, async ({ ops }) => {
    const rec = readDone(root, op, ops);
    if (!rec || rec.outcome !== 'applied') throw unknown();
    const repo = idleRepository(root, op, ops);
    const parentRun = git(repo, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
    const parent = parentRun.status === 0 ? parentRun.stdout : null;
    const detached = git(repo, ['symbolic-ref', '-q', 'HEAD']).status !== 0;
    // staged changes: against HEAD, or (no commit yet) anything in the index at all
    const staged = parent ? git(repo, ['diff', '--cached', '--quiet']).status !== 0 : must(git(repo, ['ls-files']), 'ls-files') !== '';
    if (staged) {
      throw dirty('the git index already has staged changes', 'Commit or unstage them (`git restore --staged .`), then run `vaultgate checkpoint` again.');
    }
    const repoRel = (rel: string) => path.relative(repo, abs(root, rel)).split(path.sep).join('/');
    const present = (rel: string, want: string, mode: number) => {
      const t = resolveTarget(root, rel, ops);
      const bytes = t.exists ? ops.readFile(abs(root, t.disk)) : null;
      if (!bytes || sha256Hex(bytes) !== want) {
        throw new VaultgateError('STALE_HASH', `${rel} no longer holds what ${op} wrote`, {
          path: rel,
          hint: 'A checkpoint commits only the exact bytes of the operation; commit later edits with git yourself.',
        });
      }
      const blob = must(git(repo, ['hash-object', '-w', '--stdin'], bytes), 'hash-object');
      must(git(repo, ['update-index', '--add', '--cacheinfo', `${mode & 0o111 ? '100755' : '100644'},${blob},${repoRel(t.disk)}`]), 'update-index');
    };
    const absent = (rel: string) => {
      const t = resolveTarget(root, rel, ops);
      if (t.exists) throw new VaultgateError('STALE_HASH', `${rel} exists again since ${op} removed it`, { path: rel });
      must(git(repo, ['update-index', '--force-remove', '--', repoRel(t.disk)]), 'update-index');
    };
    const unstage = () => git(repo, parent ? ['reset', '-q'] : ['rm', '-q', '--cached', '-r', '--ignore-unmatch', '.']);
    try {
      for (const w of rec.writes) {
        switch (w.mode) {
          case 'create':
          case 'replace':
            present(w.path, w.new_sha256, w.new_mode);
            break;
          case 'delete':
            absent(w.path);
            break;
          case 'move':
            absent(w.path);
            present(w.to, w.old_sha256, w.old_mode);
            break;
          default:
            unreachable(w, 'write mode');
        }
      }
      const tree = must(git(repo, ['write-tree']), 'write-tree');
      if (parent && must(git(repo, ['rev-parse', `${parent}^{tree}`]), 'rev-parse') === tree) {
        return { operation_id: op, commit: null, paths: rec.changed_paths, nothing_to_commit: true, detached };
      }
      const message = opts.message ?? `vaultgate: ${op} (${rec.operation_type})\n\nChanged: ${rec.changed_paths.join(', ')}`;
      const commit = must(git(repo, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]), 'commit-tree');
      // compare-and-swap: only if HEAD is still the parent (or still unborn)
      must(git(repo, ['update-ref', '-m', `vaultgate checkpoint ${op}`, 'HEAD', commit, parent ?? '']), 'update-ref');
      return { operation_id: op, commit, paths: rec.changed_paths, nothing_to_commit: false, detached };
    } catch (e) {
      unstage(); // the index was clean before: put it back as the user left it
      throw e;
    }
  });
}
