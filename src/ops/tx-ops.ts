import path from 'node:path';
import { isResourceLimit, isVaultgateError, VaultgateError } from '../errors.js';
import { defineOperation, type OpContext } from './operation.js';
import { actorOf } from './settings.js';

/**
 * Transaction verbs: `init`, `tx inspect|apply|recover|status|resolve`, `undo`,
 * `checkpoint`. BUNDLE is a file path, or `-` for stdin (then `content_file`
 * paths are relative to the working folder). Not offered to MCP clients: agents
 * write through proposals.
 */

async function loadBundle(ctx: OpContext, arg: string) {
  const { parseBundle, readInputFile, MAX_BUNDLE_BYTES } = await import('../txn/index.js');
  let bytes: Buffer;
  let baseDir: string;
  try {
    if (arg === '-') {
      bytes = ctx.readStdin(MAX_BUNDLE_BYTES);
      baseDir = ctx.cwd;
    } else {
      // a regular file only (decided on the opened file): a device such as /dev/zero
      // would never end, a FIFO nobody writes into would wait forever; stdin is `-`
      const file = path.resolve(ctx.cwd, arg);
      const r = readInputFile(file, MAX_BUNDLE_BYTES);
      if (r.kind !== 'file') {
        throw new VaultgateError('BUNDLE_INVALID', `bundle ${arg} is not a regular file${r.kind === 'pipe' ? ' (a FIFO is never waited on)' : ''}`, {
          hint: 'Pass the path of a bundle file, or `-` and pipe the bundle into stdin.',
        });
      }
      bytes = r.bytes;
      baseDir = path.dirname(file);
    }
  } catch (e) {
    if (e instanceof VaultgateError || isResourceLimit(e)) throw e;
    throw new VaultgateError('BUNDLE_INVALID', `cannot read bundle ${arg}: ${(e as Error).message}`, {
      hint: 'Pass the path of a bundle file, or `-` to read it from stdin.',
    });
  }
  return parseBundle(bytes, { baseDir });
}

/** The engine's settings from the environment (VAULTGATE_LOCK_TIMEOUT_MS; read in one place: txn/settings.ts). */
async function lockTimeout(ctx: OpContext): Promise<{ lockTimeoutMs?: number }> {
  const { engineSettingsFromEnv } = await import('../txn/index.js');
  return engineSettingsFromEnv(ctx.env);
}

const bundleArg = { name: 'bundle', type: 'string', positional: true, description: 'bundle file, or - for stdin', nonEmpty: true } as const;
const opArg = (description: string) => ({ name: 'op', type: 'string', positional: true, description, nonEmpty: true }) as const;
const WRITES = { readOnly: false, destructive: true, idempotent: true, openWorld: false } as const;

export const initOp = defineOperation({
  name: 'init',
  command: 'init',
  group: 'admin',
  summary: 'Create .vaultgate/ with the vault id (the first apply does this implicitly)',
  examples: ['vaultgate init --vault ~/Notes', 'vaultgate init --vault ~/Notes --json'],
  params: [] as const,
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: async function runInit(_input, ctx) {
    const { initVault } = await import('../txn/index.js');
    return { ...initVault(ctx.session().root) };
  },
  text: (r) => `${r.created ? 'initialised' : 'already initialised'}: vault id ${r.vault_id}`,
});

export const txInspectOp = defineOperation({
  name: 'tx_inspect',
  reviewed: true,
  command: 'tx inspect',
  group: 'write',
  summary: 'Validate a bundle against the vault and print the approval hash; writes nothing',
  examples: ['vaultgate tx inspect examples/bundles/add-note.json', 'cat bundle.json | vaultgate tx inspect -'],
  params: [bundleArg] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runTxInspect(input, ctx) {
    const { inspectBundle } = await import('../txn/index.js');
    return { ...inspectBundle(ctx.session().root, await loadBundle(ctx, input.bundle)) };
  },
  text: (r) => [`approval ${r.approval_sha256}`, ...r.writes.map((w) => `${w.mode.padEnd(7)} ${w.path}${w.to ? ` → ${w.to}` : ''}`)].join('\n'),
});

export const txApplyOp = defineOperation({
  name: 'tx_apply',
  reviewed: true,
  command: 'tx apply',
  group: 'write',
  summary: 'Apply a bundle all-or-nothing, if the vault is still as inspected',
  examples: ['vaultgate tx inspect bundle.json', 'vaultgate tx apply bundle.json --approval <approval_sha256 from tx inspect>'],
  params: [
    bundleArg,
    {
      name: 'approval',
      type: 'string',
      required: true,
      placeholder: 'sha256',
      description: 'approval_sha256 printed by `tx inspect`',
      pattern: { regex: /^[0-9a-f]{64}$/, hint: 'Copy approval_sha256 (64 lower-case hex digits) from `vaultgate tx inspect`.' },
    },
  ] as const,
  annotations: WRITES,
  run: async function runTxApply(input, ctx) {
    const { applyBundle } = await import('../txn/index.js');
    const root = ctx.session().root;
    const r = await applyBundle(root, await loadBundle(ctx, input.bundle), input.approval, await lockTimeout(ctx));
    return { operation_id: r.operation_id, changed_paths: r.changed_paths, ...(r.replayed ? { replayed: true } : {}), recovered: r.recovered };
  },
  text: (r) => `${r.replayed ? 'already applied' : 'applied'} ${r.operation_id}: ${r.changed_paths.join(', ')}`,
});

export const txRecoverOp = defineOperation({
  name: 'tx_recover',
  command: 'tx recover',
  group: 'admin',
  summary: 'Roll interrupted operations forward or back; retry quarantined ones',
  examples: ['vaultgate tx status', 'vaultgate tx recover', 'vaultgate tx recover --json'],
  params: [] as const,
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: async function runTxRecover(_input, ctx) {
    const { recoverVault } = await import('../txn/index.js');
    return { ...(await recoverVault(ctx.session().root, await lockTimeout(ctx))) };
  },
  text: (r) => (r.recovered.length ? r.recovered.map((o) => `${o.operation_id}: ${o.outcome}`).join('\n') : 'nothing to recover'),
});

export const txStatusOp = defineOperation({
  name: 'tx_status',
  reviewed: true,
  command: 'tx status',
  group: 'admin',
  summary: 'Pending and quarantined operations, and the lock owner (read-only)',
  examples: ['vaultgate tx status', 'vaultgate tx status --json'],
  params: [] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runTxStatus(_input, ctx) {
    const { txStatus } = await import('../txn/index.js');
    return { ...txStatus(ctx.session().root) };
  },
  text: (r) =>
    [
      ...(r.lock ? [`lock: ${r.lock.liveness}${r.lock.stale ? ' (stale: the next writer reaps it)' : ''}: ${r.lock.reason}`] : []),
      ...(r.pending.length ? r.pending.map((p) => `${p.operation_id}: ${p.state}`) : ['no pending operations']),
    ].join('\n'),
});

export const txResolveOp = defineOperation({
  name: 'tx_resolve',
  command: 'tx resolve',
  group: 'admin',
  summary: 'Decide a quarantined operation',
  examples: ['vaultgate tx resolve op-123 --keep-current', 'vaultgate tx resolve op-123 --restore-original'],
  params: [
    opArg('quarantined operation id'),
    { name: 'keep_current', type: 'boolean', description: 'accept the files as they are now' },
    { name: 'restore_original', type: 'boolean', description: 'put back the bytes found before the operation (current ones are kept aside)' },
  ] as const,
  annotations: WRITES,
  run: async function runTxResolve(input, ctx) {
    if (input.keep_current === input.restore_original) {
      throw new VaultgateError('USAGE', 'give exactly one of --keep-current or --restore-original', { hint: '`vaultgate tx status` shows what changed.' });
    }
    const { resolveOperation } = await import('../txn/index.js');
    return { ...(await resolveOperation(ctx.session().root, input.op, input.keep_current ? 'keep-current' : 'restore-original', await lockTimeout(ctx))) };
  },
  text: (r) => `${r.operation_id}: ${r.outcome}`,
});

export const undoOp = defineOperation({
  name: 'undo',
  command: 'undo',
  group: 'write',
  summary: 'Apply the inverse of an operation, if its files still hold exactly what it wrote',
  examples: ['vaultgate undo <operation_id>', 'vaultgate undo proposal-p-7-1a2b3c4d --json'],
  params: [opArg('applied operation id')] as const,
  annotations: WRITES,
  run: async function runUndo(input, ctx) {
    const { undoOperation } = await import('../txn/index.js');
    const result = await undoOperation(ctx.session().root, input.op, await lockTimeout(ctx));
    // A proposal whose transaction this was is `undone` from now on (its log says when and by whom);
    // proposals look at the engine's record anyway, so a failure here loses nothing but the moment.
    try {
      const { settleOperation } = await import('../proposals/index.js');
      settleOperation(ctx.session(), result.undone, actorOf(ctx.env));
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
    }
    return { ...result };
  },
  text: (r) => `undid ${r.undone} as ${r.operation_id}`,
});

export const checkpointOp = defineOperation({
  name: 'checkpoint',
  command: 'checkpoint',
  group: 'write',
  summary: 'Commit exactly the bytes an operation wrote to git (never automatic)',
  examples: ['vaultgate checkpoint <operation_id>', "vaultgate checkpoint <operation_id> --message 'agent: weekly review'"],
  params: [opArg('applied operation id'), { name: 'message', type: 'string', placeholder: 'text', description: 'commit message' }] as const,
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: async function runCheckpoint(input, ctx) {
    const { checkpointOperation } = await import('../txn/index.js');
    return { ...(await checkpointOperation(ctx.session().root, input.op, { ...(await lockTimeout(ctx)), ...(input.message !== undefined ? { message: input.message } : {}) })) };
  },
  text: (r) => (r.commit ? `committed ${r.commit}${r.detached ? ' (on a detached HEAD)' : ''}` : 'nothing to commit'),
});
