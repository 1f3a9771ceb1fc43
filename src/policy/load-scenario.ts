import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError, isVaultgateError } from '../errors.js';
import { dataRoots, readOpen } from '../vault/index.js';
import { parseScenarioYaml, type ScenarioSpec } from './scenario-schema.js';
import { cachedSpec, storeSpec } from './spec-cache.js';

type Env = Record<string, string | undefined>;

/**
 * Where scenarios live and how one is read (DESIGN §3): a folder
 * `<vault>/.vaultgate/scenarios/<name>/` or `$XDG_CONFIG_HOME/vaultgate/scenarios/<name>/`
 * (VAULTGATE_HOME moves the latter), the vault's first. A folder holds exactly:
 *
 * - `scenario.yaml` — the scenario (scenario-schema.ts), required;
 * - `AGENT.md` — the one instruction every agent runtime gets, required;
 * - `validate.mjs` — an optional validator, run in a child process (run-validator.ts).
 *
 * Any other file at the top of the folder is refused (a `validate.js` that was
 * silently skipped would weaken the write policy); dot-files are ignored and
 * subfolders are free (helpers a validator imports).
 */

/** A scenario name: lower-case letters, digits, `-`, `_`; it is a folder name, so no dots, slashes or case games. */
export const SCENARIO_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const SCENARIO_FILES = { spec: 'scenario.yaml', instruction: 'AGENT.md', validator: 'validate.mjs' } as const;
/** Largest scenario.yaml and AGENT.md we read (bytes). */
export const MAX_SCENARIO_FILE_BYTES = 256 * 1024;

export type ScenarioSource = 'vault' | 'machine';

export interface Scenario extends ScenarioSpec {
  /** AGENT.md, as written. */
  instruction: string;
  /** Which root it was found in: the vault's `.vaultgate/scenarios/` or the machine config's. */
  source: ScenarioSource;
  /** Absolute path of the scenario folder. */
  dir: string;
  /** Absolute path of `validate.mjs`, or null when the scenario has none. */
  validator: string | null;
}

export interface ScenarioRoots {
  /** The vault root (its `.vaultgate/scenarios/` is looked at first); omit for machine scenarios only. */
  root?: string;
  env: Env;
}

/** The scenario roots in lookup order. */
export function scenarioRoots(opts: ScenarioRoots): { source: ScenarioSource; dir: string }[] {
  const out: { source: ScenarioSource; dir: string }[] = [];
  if (opts.root) out.push({ source: 'vault', dir: path.join(opts.root, '.vaultgate', 'scenarios') });
  out.push({ source: 'machine', dir: path.join(dataRoots(opts.env).config, 'scenarios') });
  return out;
}

export function assertScenarioName(name: string): void {
  if (!SCENARIO_NAME.test(name)) {
    throw new VaultgateError('INVALID_INPUT', `${JSON.stringify(name)} is not a scenario name`, {
      hint: 'Scenario names are folder names: lower-case letters, digits, `-` and `_`, at most 64 characters (`vaultgate scenario list`).',
      details: { name },
    });
  }
}

function kindOf(p: string): 'dir' | 'other' | 'absent' {
  try {
    return fs.statSync(p).isDirectory() ? 'dir' : 'other';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return 'absent';
    throw e;
  }
}

/**
 * Read one scenario. Found in the vault → that one, even when it is invalid (a
 * broken vault scenario never falls back to a machine one of the same name).
 * Unknown name → SCENARIO_NOT_FOUND; broken files → SCENARIO_INVALID naming the
 * file and key.
 */
export function loadScenario(name: string, opts: ScenarioRoots): Scenario {
  assertScenarioName(name);
  const roots = scenarioRoots(opts);
  for (const { source, dir } of roots) {
    const folder = path.join(dir, name);
    const kind = kindOf(folder);
    if (kind === 'absent') continue;
    if (kind !== 'dir') throw new VaultgateError('SCENARIO_INVALID', `${folder}: a scenario must be a folder`, { details: { file: folder } });
    return readScenarioFolder(folder, name, source, dataRoots(opts.env).cache);
  }
  throw new VaultgateError('SCENARIO_NOT_FOUND', `no scenario named ${JSON.stringify(name)}`, {
    details: { name, looked_in: roots.map((r) => r.dir) },
    hint: `Create ${path.join(roots[roots.length - 1]!.dir, name)}/ with scenario.yaml and AGENT.md (docs/policy.md), or run \`vaultgate scenario list\`.`,
  });
}

function decodeUtf8(bytes: Buffer, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new VaultgateError('SCENARIO_INVALID', `${file}: is not valid UTF-8`, { details: { file } });
  }
}

function readBoundedBytes(file: string): Buffer {
  const fail = (why: string) => new VaultgateError('SCENARIO_INVALID', `${file}: ${why}`, { details: { file } });
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO named AGENT.md must not hang the command (it is then refused as not a file)
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw fail('missing (a scenario needs scenario.yaml and AGENT.md)');
    throw fail(`cannot be read: ${(e as Error).message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw fail('is not a file');
    if (st.size > MAX_SCENARIO_FILE_BYTES) throw fail(`is larger than ${MAX_SCENARIO_FILE_BYTES} bytes`);
    return readOpen(fd, st.size);
  } finally {
    fs.closeSync(fd);
  }
}

/** scenario.yaml, validated — or taken from the spec cache when these exact bytes validated before. */
function readSpec(file: string, name: string, cacheRoot: string): ScenarioSpec {
  const bytes = readBoundedBytes(file);
  const cached = cachedSpec(cacheRoot, name, bytes);
  if (cached) return cached;
  const spec = parseScenarioYaml(decodeUtf8(bytes, file), file, name);
  storeSpec(cacheRoot, name, bytes, spec);
  return spec;
}

function readScenarioFolder(folder: string, name: string, source: ScenarioSource, cacheRoot: string): Scenario {
  const known = new Set<string>(Object.values(SCENARIO_FILES));
  for (const e of fs.readdirSync(folder, { withFileTypes: true })) {
    if (e.name.startsWith('.') || known.has(e.name)) continue;
    if (e.isDirectory()) continue;
    throw new VaultgateError('SCENARIO_INVALID', `${path.join(folder, e.name)}: unknown file in a scenario folder`, {
      details: { file: path.join(folder, e.name) },
      hint: `A scenario folder holds ${[...known].join(', ')} (exact names); put anything else in a subfolder.`,
    });
  }
  const specFile = path.join(folder, SCENARIO_FILES.spec);
  const spec = readSpec(specFile, name, cacheRoot);
  const agentFile = path.join(folder, SCENARIO_FILES.instruction);
  const instruction = decodeUtf8(readBoundedBytes(agentFile), agentFile);
  if (instruction.trim() === '') throw new VaultgateError('SCENARIO_INVALID', `${agentFile}: is empty`, { details: { file: agentFile }, hint: 'Write the instruction agents should follow in this scenario.' });
  const validatorFile = path.join(folder, SCENARIO_FILES.validator);
  const vkind = kindOf(validatorFile);
  if (vkind === 'dir') throw new VaultgateError('SCENARIO_INVALID', `${validatorFile}: is a folder, not a script`, { details: { file: validatorFile } });
  return { ...spec, instruction, source, dir: folder, validator: vkind === 'absent' ? null : validatorFile };
}

/** One scenario folder as `scenario list` shows it: valid or not, and whether a vault one shadows it. */
export interface ScenarioListing {
  name: string;
  source: ScenarioSource;
  dir: string;
  /** False when a vault scenario of the same name is used instead. */
  active: boolean;
  /** The parsed scenario, or null when its files are invalid. */
  scenario: Scenario | null;
  /** Why it is invalid (code and message), or null. */
  error: { code: string; message: string } | null;
}

/** Every scenario folder of both roots, by name then source (vault first). Never throws for one broken scenario. */
export function listScenarios(opts: ScenarioRoots): ScenarioListing[] {
  const out: ScenarioListing[] = [];
  const seen = new Set<string>();
  for (const { source, dir } of scenarioRoots(opts)) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      throw e;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (e.name.startsWith('.')) continue;
      const folder = path.join(dir, e.name);
      const listing: ScenarioListing = { name: e.name, source, dir: folder, active: !seen.has(e.name), scenario: null, error: null };
      seen.add(e.name);
      try {
        assertScenarioName(e.name);
        if (kindOf(folder) !== 'dir') throw new VaultgateError('SCENARIO_INVALID', `${folder}: a scenario must be a folder`);
        listing.scenario = readScenarioFolder(folder, e.name, source, dataRoots(opts.env).cache);
      } catch (err) {
        if (!isVaultgateError(err)) throw err;
        listing.error = { code: err.code, message: err.message };
      }
      out.push(listing);
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.source === 'vault' ? -1 : 1));
}
