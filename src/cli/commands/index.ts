import type { Command } from 'commander';
import type { Reporter } from '../command-kit.js';

/**
 * Every command module registers its verbs here. Modules import their core code
 * lazily inside actions, so `vaultgate --help` stays fast.
 */
export type Register = (program: Command, reporter: Reporter) => void;

export async function loadCommands(): Promise<Register[]> {
  const mods = await Promise.all([
    import('./vault-commands.js'),
    import('./tx-commands.js'),
    import('./link-commands.js'),
    import('./index-commands.js'),
  ]);
  return mods.map((m) => m.register);
}
