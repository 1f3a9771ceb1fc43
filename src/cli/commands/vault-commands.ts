import type { Command } from 'commander';
import { action, type Reporter } from '../command-kit.js';

/** `vaultgate files`: what the scanner sees (debugging aid; read-only). */
export function register(program: Command, reporter: Reporter): void {
  program
    .command('files')
    .description('List the files of the vault as Obsidian sees them (no dot-folders, no symlinks)')
    .action(
      action(reporter, async (ctx) => {
        const { scanVault } = await import('../../vault/index.js');
        const root = await ctx.vaultRoot();
        const { files, warnings } = scanVault(root);
        return {
          json: { vault: root, total: files.length, files: files.map((f) => ({ path: f.path, size: f.size })), warnings },
          text: files.map((f) => f.path).join('\n'),
        };
      }),
    );
}
