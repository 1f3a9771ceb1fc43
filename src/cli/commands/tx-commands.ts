import path from 'node:path';
import type { Command } from 'commander';
import { action, usageError, type ActionContext, type Reporter } from '../command-kit.js';

/**
 * Transaction verbs: `init`, `tx inspect|apply|recover|status|resolve`, `undo`,
 * `checkpoint`. Thin: read the bundle, call txn, render. BUNDLE is a file path,
 * or `-` for stdin (then `content_file` paths are relative to the cwd).
 */
async function loadBundle(ctx: ActionContext, arg: string) {
  const { parseBundle, readBounded, readInputFile, MAX_BUNDLE_BYTES } = await import('../../txn/index.js');
  const { VaultgateError, isResourceLimit } = await import('../../errors.js');
  let bytes: Buffer;
  let baseDir: string;
  const file = arg === '-' ? null : path.resolve(ctx.io.cwd, arg);
  try {
    if (file === null) {
      bytes = readBounded(0, MAX_BUNDLE_BYTES); // at most limit + 1 bytes: an endless stdin is refused by size
      baseDir = ctx.io.cwd;
    } else {
      // a regular file, or a pipe the caller writes into (`<(…)`); never a device, which would never end
      const r = readInputFile(file, MAX_BUNDLE_BYTES, { allowPipe: true });
      if (r.kind === 'other') {
        throw new VaultgateError('BUNDLE_INVALID', `bundle ${arg} is not a regular file or a pipe`, {
          hint: 'Pass the path of a bundle file, or `-` to read it from stdin.',
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

/** The engine's settings from the environment (one place reads them: txn's settings.ts). */
async function engineSettings(ctx: ActionContext): Promise<{ lockTimeoutMs?: number }> {
  const { engineSettingsFromEnv } = await import('../../txn/index.js');
  return engineSettingsFromEnv(ctx.io.env);
}

export function register(program: Command, reporter: Reporter): void {
  program
    .command('init')
    .description('Create .vaultgate/ with the vault id (the first apply does this implicitly)')
    .action(
      action(reporter, async (ctx) => {
        const { initVault } = await import('../../txn/index.js');
        const r = initVault(await ctx.vaultRoot());
        return { json: { ...r }, text: `${r.created ? 'initialised' : 'already initialised'}: vault id ${r.vault_id}` };
      }),
    );

  const tx = program.command('tx').description('Recoverable multi-file transactions (docs/bundle.md)');
  tx.command('inspect')
    .argument('<bundle>', 'bundle file, or - for stdin')
    .description('Validate a bundle against the vault and print the approval hash; writes nothing')
    .action(
      action(reporter, async (ctx, [arg]) => {
        const { inspectBundle } = await import('../../txn/index.js');
        const root = await ctx.vaultRoot();
        const r = inspectBundle(root, await loadBundle(ctx, arg!));
        return {
          json: { ...r },
          text: [`approval ${r.approval_sha256}`, ...r.writes.map((w) => `${w.mode.padEnd(7)} ${w.path}${w.to ? ` → ${w.to}` : ''}`)].join('\n'),
        };
      }),
    );
  tx.command('apply')
    .argument('<bundle>', 'bundle file, or - for stdin')
    .requiredOption('--approval <sha256>', 'approval_sha256 printed by `tx inspect`')
    .description('Apply a bundle all-or-nothing, if the vault is still as inspected')
    .action(
      action(reporter, async (ctx, [arg], opts) => {
        const { applyBundle } = await import('../../txn/index.js');
        const approval = String(opts.approval);
        if (!/^[0-9a-f]{64}$/.test(approval)) throw usageError('--approval must be 64 lower-case hex digits', 'Copy approval_sha256 from `vaultgate tx inspect`.');
        const root = await ctx.vaultRoot();
        const r = await applyBundle(root, await loadBundle(ctx, arg!), approval, await engineSettings(ctx));
        return {
          json: { operation_id: r.operation_id, changed_paths: r.changed_paths, ...(r.replayed ? { replayed: true } : {}), recovered: r.recovered },
          text: `${r.replayed ? 'already applied' : 'applied'} ${r.operation_id}: ${r.changed_paths.join(', ')}`,
        };
      }),
    );
  tx.command('recover')
    .description('Roll interrupted operations forward or back; retry quarantined ones')
    .action(
      action(reporter, async (ctx) => {
        const { recoverVault } = await import('../../txn/index.js');
        const r = await recoverVault(await ctx.vaultRoot(), await engineSettings(ctx));
        return { json: { ...r }, text: r.recovered.length ? r.recovered.map((o) => `${o.operation_id}: ${o.outcome}`).join('\n') : 'nothing to recover' };
      }),
    );
  tx.command('status')
    .description('Pending and quarantined operations, and the lock owner (read-only)')
    .action(
      action(reporter, async (ctx) => {
        const { txStatus } = await import('../../txn/index.js');
        const r = txStatus(await ctx.vaultRoot());
        return { json: { ...r }, text: r.pending.length ? r.pending.map((p) => `${p.operation_id}: ${p.state}`).join('\n') : 'no pending operations' };
      }),
    );
  tx.command('resolve')
    .argument('<op>', 'quarantined operation id')
    .option('--keep-current', 'accept the files as they are now')
    .option('--restore-original', 'put back the bytes found before the operation (current ones are kept aside)')
    .description('Decide a quarantined operation')
    .action(
      action(reporter, async (ctx, [op], opts) => {
        if (Boolean(opts.keepCurrent) === Boolean(opts.restoreOriginal)) {
          throw usageError('give exactly one of --keep-current or --restore-original', '`vaultgate tx status` shows what changed.');
        }
        const { resolveOperation } = await import('../../txn/index.js');
        const r = await resolveOperation(await ctx.vaultRoot(), op!, opts.keepCurrent ? 'keep-current' : 'restore-original', await engineSettings(ctx));
        return { json: { ...r }, text: `${r.operation_id}: ${r.outcome}` };
      }),
    );

  program
    .command('undo')
    .argument('<op>', 'applied operation id')
    .description('Apply the inverse of an operation, if its files still hold exactly what it wrote')
    .action(
      action(reporter, async (ctx, [op]) => {
        const { undoOperation } = await import('../../txn/index.js');
        const r = await undoOperation(await ctx.vaultRoot(), op!, await engineSettings(ctx));
        return { json: { ...r }, text: `undid ${r.undone} as ${r.operation_id}` };
      }),
    );
  program
    .command('checkpoint')
    .argument('<op>', 'applied operation id')
    .option('--message <text>', 'commit message')
    .description('Commit exactly the bytes an operation wrote to git (never automatic)')
    .action(
      action(reporter, async (ctx, [op], opts) => {
        const { checkpointOperation } = await import('../../txn/index.js');
        const r = await checkpointOperation(await ctx.vaultRoot(), op!, {
          ...(await engineSettings(ctx)),
          ...(typeof opts.message === 'string' ? { message: opts.message } : {}),
        });
        return { json: { ...r }, text: r.commit ? `committed ${r.commit}${r.detached ? ' (on a detached HEAD)' : ''}` : 'nothing to commit' };
      }),
    );
}
