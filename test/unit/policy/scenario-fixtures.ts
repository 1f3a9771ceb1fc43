import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { tempVault, writeFiles } from '../../helpers/temp-vault.js';

export const EXAMPLE_SCENARIOS = path.join(REPO_ROOT, 'examples/scenarios');

/** The machine scenarios folder under a VAULTGATE_HOME. */
export function machineScenarios(home: string): string {
  return path.join(home, 'config', 'scenarios');
}

/** Write a scenario folder (`{file: text}`) under the machine config of `home`, or the vault's `.vaultgate/`. */
export function writeScenario(where: { home: string } | { vault: string }, name: string, files: Record<string, string>): string {
  const dir = 'home' in where ? path.join(machineScenarios(where.home), name) : path.join(where.vault, '.vaultgate', 'scenarios', name);
  fs.mkdirSync(dir, { recursive: true });
  writeFiles(dir, files);
  return dir;
}

/** A scenario.yaml with the given body lines after `name` and `version`. */
export function yaml(name: string, ...lines: string[]): string {
  return [`name: ${name}`, 'version: 1', ...lines].join('\n') + '\n';
}

/** A copy of the demo vault with the example scenarios installed in the machine config. */
export function demoWithScenarios(): { root: string; home: string; env: Record<string, string> } {
  const { root, home } = tempVault();
  fs.cpSync(path.join(REPO_ROOT, 'examples/demo-vault'), root, { recursive: true });
  fs.cpSync(EXAMPLE_SCENARIOS, machineScenarios(home), { recursive: true });
  return { root, home, env: { VAULTGATE_HOME: home } };
}
