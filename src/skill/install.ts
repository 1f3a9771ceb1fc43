import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { parseStrictJson } from '../txn/index.js';
import { linkedFile, lstatOrNull, mkdirs, removeEmptyDirs, sha256, writeFileAtomic } from './files.js';
import { addDenyRules, claudeDenyRules, removeDenyRules } from './guard.js';
import type { AgentCommand } from './command.js';
import { SKILL_NAME } from './render-skill.js';

/**
 * `vaultgate skill install|uninstall`: one SKILL.md, written once under the
 * data root, linked into each runtime's skills folder:
 *
 *   <data>/skill/vaultgate/SKILL.md        the text (regenerated on every install)
 *   ~/.claude/skills/vaultgate  → <data>/skill/vaultgate     (Claude Code)
 *   ~/.codex/skills/vaultgate   → <data>/skill/vaultgate     (Codex)
 *   ~/.pi/agent/skills/vaultgate → <data>/skill/vaultgate    (pi)
 *
 * A folder symlink per runtime (each runtime reads `<skills>/<name>/SKILL.md`;
 * the skills folder itself stays a real folder, which Claude Code requires);
 * where a symlink cannot be made, a folder with a copy. What was installed is
 * recorded in `<data>/skill/installed.json`, so uninstall removes exactly that,
 * and only while it is still what vaultgate put there.
 *
 * Never overwrites what it did not write: a file or folder of the same name is
 * FOREIGN_FILE (exit 75) and nothing at all is changed (every runtime is
 * checked before the first write). Never replaces a symbolic link (issue 20):
 * a settings file that is one (a dotfiles repo) is written through it when it
 * leads to a regular file of this user inside the home folder, else refused
 * like a foreign file; the backup stays beside the link, not in the linked repo.
 */

export const RUNTIMES = ['claude', 'codex', 'pi'] as const;
export type Runtime = (typeof RUNTIMES)[number];

/** Where each runtime looks for user-level skills, relative to the home folder. */
export const SKILLS_DIRS: Record<Runtime, string> = {
  claude: '.claude/skills',
  codex: '.codex/skills',
  pi: '.pi/agent/skills',
};

/** Claude Code's user settings, where `--guard` adds deny rules. */
export const CLAUDE_SETTINGS = '.claude/settings.json';

const MANIFEST_SCHEMA = 'vaultgate.skill-install.v1';

interface LinkEntry {
  runtime: Runtime;
  /** The runtime's skill folder (absolute). */
  path: string;
  kind: 'symlink' | 'copy';
  /** What the symlink points to; for a copy, the SKILL.md hash written. */
  target: string;
  sha256: string | null;
  /** Folders created to hold it (removed again when empty). */
  created_dirs: string[];
}

interface GuardEntry {
  settings: string;
  rules: string[];
  created_file: boolean;
  /** Keys the merge created (`permissions`, `permissions.deny`), removed again when left empty. */
  created_keys: string[];
  created_dirs: string[];
}

interface Manifest {
  schema: typeof MANIFEST_SCHEMA;
  links: LinkEntry[];
  guards: GuardEntry[];
  /** The shim the skill runs when vaultgate is not on PATH (command.ts); removed with the last link. Absent in records written before it. */
  shim?: { path: string; sha256: string } | null;
}

export interface SkillLayout {
  /** `<data>/skill`: the manifest and the skill folder. */
  root: string;
  /** `<data>/skill/vaultgate`: what runtimes link to. */
  dir: string;
  file: string;
  manifest: string;
}

export function skillLayout(dataRoot: string): SkillLayout {
  const root = path.join(dataRoot, 'skill');
  const dir = path.join(root, SKILL_NAME);
  return { root, dir, file: path.join(dir, 'SKILL.md'), manifest: path.join(root, 'installed.json') };
}

function readManifest(file: string): Manifest {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { schema: MANIFEST_SCHEMA, links: [], guards: [] };
    throw e;
  }
  try {
    const m = parseStrictJson(text) as Manifest;
    if (m?.schema !== MANIFEST_SCHEMA || !Array.isArray(m.links) || !Array.isArray(m.guards)) throw new Error(`not a ${MANIFEST_SCHEMA} document`);
    return m;
  } catch (e) {
    throw new VaultgateError('STATE_CORRUPT', `${file} is not a readable install record: ${(e as Error).message}`, {
      path: file,
      hint: 'Move it away; then remove the skill folders by hand (vaultgate removes only what its record names) and install again.',
    });
  }
}

function writeManifest(layout: SkillLayout, m: Manifest): void {
  if (m.links.length === 0 && m.guards.length === 0) {
    fs.rmSync(layout.manifest, { force: true });
    return;
  }
  mkdirs(layout.root);
  writeFileAtomic(layout.manifest, JSON.stringify(m, null, 2) + '\n');
}

export interface RuntimeReport {
  runtime: Runtime;
  /** The runtime's skill folder. */
  path: string;
  /** install: linked | copied | updated | unchanged; uninstall: removed | absent | left. */
  action: string;
  kind?: 'symlink' | 'copy';
  /** Why something was left in place (uninstall). */
  reason?: string;
}

export interface GuardReport {
  settings: string;
  /** Rules added (install) or removed (uninstall). */
  rules: string[];
  /** The copy of the settings file taken before it was changed, or null. */
  backup: string | null;
  action: string;
  /** Why the settings were left as they are (uninstall: a link that leads where vaultgate does not write). */
  reason?: string;
}

interface InstallOptions {
  home: string;
  dataRoot: string;
  runtimes: readonly Runtime[];
  /** The generated SKILL.md. */
  content: string;
  dryRun: boolean;
  guard: boolean;
  /** `copy` forces copies (tests of the fallback); default: symlinks, copies where impossible. */
  linkMode?: 'symlink' | 'copy';
  now?: () => Date;
  /** The command the skill runs (command.ts): with a shim to write, written here after the foreign-file check; the guard's rules name it. */
  command?: AgentCommand & { shimText: string | null };
}

/** Errors `symlink` raises where a filesystem or OS cannot make one (then a copy is made). */
const NO_SYMLINK = new Set(['EPERM', 'EACCES', 'ENOTSUP', 'EOPNOTSUPP', 'EINVAL', 'ENOSYS']);

function skillPath(home: string, runtime: Runtime): string {
  return path.join(home, SKILLS_DIRS[runtime], SKILL_NAME);
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b);
}

function backupName(file: string, now: Date): string {
  return `${file}.vaultgate-backup-${now.toISOString().replace(/[:.]/g, '-')}`;
}

export function installSkill(opts: InstallOptions): { skill: { path: string; sha256: string; bytes: number }; runtimes: RuntimeReport[]; guard: GuardReport | null; dry_run: boolean } {
  const layout = skillLayout(opts.dataRoot);
  const manifest = readManifest(layout.manifest);
  const contentSha = sha256(opts.content);

  // Plan every runtime before touching anything.
  const plans: { runtime: Runtime; path: string; action: 'link' | 'update' | 'unchanged'; entry?: LinkEntry }[] = [];
  const foreign: string[] = [];
  for (const runtime of opts.runtimes) {
    const where = skillPath(opts.home, runtime);
    const st = lstatOrNull(where);
    const entry = manifest.links.find((e) => samePath(e.path, where));
    if (!st) plans.push({ runtime, path: where, action: 'link' });
    else if (st.isSymbolicLink() && samePath(path.resolve(path.dirname(where), fs.readlinkSync(where)), layout.dir)) plans.push({ runtime, path: where, action: 'unchanged', ...(entry ? { entry } : {}) });
    else if (st.isDirectory() && entry?.kind === 'copy' && fileSha(path.join(where, 'SKILL.md')) === entry.sha256) {
      plans.push({ runtime, path: where, action: entry.sha256 === contentSha ? 'unchanged' : 'update', entry });
    } else foreign.push(where);
  }

  const settingsFile = path.join(opts.home, CLAUDE_SETTINGS);
  let guardPlan: { original: string | null; text: string; added: string[]; created: string[] } | null = null;
  let settingsWrite = settingsFile;
  if (opts.guard && opts.runtimes.includes('claude')) {
    // a link is followed only to a sane place (else FOREIGN_FILE, before any write)
    settingsWrite = linkedFile(settingsFile, opts.home).file;
    const original = readIfExists(settingsFile);
    guardPlan = { original, ...addDenyRules(settingsFile, original, claudeDenyRules(opts.command?.run ?? 'vaultgate')) };
  }

  if (foreign.length) {
    throw new VaultgateError('FOREIGN_FILE', `${foreign.join(', ')} ${foreign.length === 1 ? 'exists' : 'exist'} and ${foreign.length === 1 ? 'was' : 'were'} not installed by vaultgate`, {
      path: foreign[0],
      details: { paths: foreign },
      hint: 'vaultgate never overwrites what it did not write: move it away (or remove it) and run `vaultgate skill install` again. Nothing was changed.',
    });
  }

  const reports: RuntimeReport[] = [];
  let guardReport: GuardReport | null = null;
  if (opts.dryRun) {
    for (const p of plans) reports.push({ runtime: p.runtime, path: p.path, action: p.action === 'link' ? (opts.linkMode === 'copy' ? 'copy' : 'link') : p.action });
    if (guardPlan) guardReport = { settings: settingsFile, rules: guardPlan.added, backup: null, action: guardPlan.added.length ? (guardPlan.original === null ? 'create' : 'merge') : 'unchanged' };
    return { skill: { path: layout.file, sha256: contentSha, bytes: Buffer.byteLength(opts.content) }, runtimes: reports, guard: guardReport, dry_run: true };
  }

  mkdirs(layout.dir);
  if (fileSha(layout.file) !== contentSha) writeFileAtomic(layout.file, opts.content);
  const shim = opts.command?.shim && opts.command.shimText !== null ? { path: opts.command.shim, text: opts.command.shimText } : null;
  if (shim) {
    const sha = sha256(shim.text);
    mkdirs(path.dirname(shim.path));
    // the data root's own folder: rewritten when it is not exactly this build's shim (another checkout, another node)
    if (fileSha(shim.path) !== sha) writeFileAtomic(shim.path, shim.text, 0o755);
    manifest.shim = { path: shim.path, sha256: sha };
  } else if (opts.command?.via === 'path' && manifest.shim) {
    // vaultgate is on PATH now (`npm link`): the shim is retired, while it is still what vaultgate wrote
    if (fileSha(manifest.shim.path) === manifest.shim.sha256) {
      fs.rmSync(manifest.shim.path);
      removeEmptyDirs([path.dirname(manifest.shim.path)]);
    }
    manifest.shim = null;
  }

  for (const p of plans) {
    if (p.action === 'unchanged') {
      // A link that is ours but missing from the record (the record was lost): record it again.
      if (!p.entry) manifest.links.push({ runtime: p.runtime, path: p.path, kind: 'symlink', target: layout.dir, sha256: null, created_dirs: [] });
      reports.push({ runtime: p.runtime, path: p.path, action: 'unchanged', kind: p.entry?.kind ?? 'symlink' });
      continue;
    }
    if (p.action === 'update') {
      writeFileAtomic(path.join(p.path, 'SKILL.md'), opts.content);
      p.entry!.sha256 = contentSha;
      reports.push({ runtime: p.runtime, path: p.path, action: 'updated', kind: 'copy' });
      continue;
    }
    const created = mkdirs(path.dirname(p.path));
    let kind: 'symlink' | 'copy' = 'symlink';
    try {
      if (opts.linkMode === 'copy') throw Object.assign(new Error('copies requested'), { code: 'ENOTSUP' });
      fs.symlinkSync(layout.dir, p.path, 'dir');
    } catch (e) {
      if (!NO_SYMLINK.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
      kind = 'copy';
      fs.mkdirSync(p.path);
      created.push(p.path);
      writeFileAtomic(path.join(p.path, 'SKILL.md'), opts.content);
    }
    manifest.links = manifest.links.filter((e) => !samePath(e.path, p.path));
    manifest.links.push({ runtime: p.runtime, path: p.path, kind, target: kind === 'symlink' ? layout.dir : path.join(p.path, 'SKILL.md'), sha256: kind === 'copy' ? contentSha : null, created_dirs: created });
    reports.push({ runtime: p.runtime, path: p.path, action: kind === 'symlink' ? 'linked' : 'copied', kind });
  }

  if (guardPlan) {
    let backup: string | null = null;
    if (guardPlan.added.length) {
      const created = mkdirs(path.dirname(settingsFile));
      if (guardPlan.original !== null) {
        backup = backupName(settingsFile, (opts.now ?? (() => new Date()))());
        fs.copyFileSync(settingsFile, backup, fs.constants.COPYFILE_EXCL);
      }
      const mode = guardPlan.original === null ? 0o600 : fs.statSync(settingsFile).mode & 0o777;
      writeFileAtomic(settingsWrite, guardPlan.text, mode);
      const prev = manifest.guards.find((g) => samePath(g.settings, settingsFile));
      if (prev) {
        prev.rules = [...new Set([...prev.rules, ...guardPlan.added])];
        prev.created_keys = [...new Set([...(prev.created_keys ?? []), ...guardPlan.created])];
      } else manifest.guards.push({ settings: settingsFile, rules: guardPlan.added, created_file: guardPlan.original === null, created_keys: guardPlan.created, created_dirs: created });
    }
    guardReport = { settings: settingsFile, rules: guardPlan.added, backup, action: guardPlan.added.length ? (guardPlan.original === null ? 'created' : 'merged') : 'unchanged' };
  }

  writeManifest(layout, manifest);
  return { skill: { path: layout.file, sha256: contentSha, bytes: Buffer.byteLength(opts.content) }, runtimes: reports, guard: guardReport, dry_run: false };
}

export function uninstallSkill(opts: { home: string; dataRoot: string; runtimes: readonly Runtime[]; dryRun: boolean; now?: () => Date }): { runtimes: RuntimeReport[]; guard: GuardReport | null; dry_run: boolean; skill_removed: boolean } {
  const layout = skillLayout(opts.dataRoot);
  const manifest = readManifest(layout.manifest);
  const reports: RuntimeReport[] = [];
  const keep: LinkEntry[] = [];
  for (const entry of manifest.links) {
    // Only this home's links of the runtimes asked for; other installs (another --home) stay recorded.
    if (!opts.runtimes.includes(entry.runtime) || !samePath(entry.path, skillPath(opts.home, entry.runtime))) {
      keep.push(entry);
      continue;
    }
    const st = lstatOrNull(entry.path);
    const report: RuntimeReport = { runtime: entry.runtime, path: entry.path, action: 'removed', kind: entry.kind };
    if (!st) report.action = 'absent';
    else if (entry.kind === 'symlink') {
      if (st.isSymbolicLink() && samePath(path.resolve(path.dirname(entry.path), fs.readlinkSync(entry.path)), entry.target)) {
        if (!opts.dryRun) fs.unlinkSync(entry.path);
      } else Object.assign(report, { action: 'left', reason: 'it was replaced by something vaultgate did not write' });
    } else {
      const file = path.join(entry.path, 'SKILL.md');
      if (st.isDirectory() && fileSha(file) === entry.sha256) {
        if (!opts.dryRun) fs.rmSync(file);
      } else Object.assign(report, { action: 'left', reason: 'SKILL.md was changed since vaultgate wrote it' });
    }
    if (!opts.dryRun) removeEmptyDirs(entry.created_dirs);
    reports.push(report);
  }
  for (const runtime of opts.runtimes) {
    const where = skillPath(opts.home, runtime);
    if (!reports.some((r) => samePath(r.path, where))) reports.push({ runtime, path: where, action: 'absent' });
  }

  let guardReport: GuardReport | null = null;
  const guards: GuardEntry[] = [];
  for (const g of manifest.guards) {
    if (!opts.runtimes.includes('claude') || !samePath(g.settings, path.join(opts.home, CLAUDE_SETTINGS))) {
      guards.push(g);
      continue;
    }
    let target: { file: string; link: boolean };
    try {
      target = linkedFile(g.settings, opts.home);
    } catch (e) {
      if (!(e instanceof VaultgateError)) throw e;
      // a link that now leads somewhere it may not: left as it is, and said so
      guardReport = { settings: g.settings, rules: [], backup: null, action: 'left', reason: e.message };
      guards.push(g);
      continue;
    }
    const original = readIfExists(g.settings);
    if (original === null) {
      guardReport = { settings: g.settings, rules: [], backup: null, action: 'absent' };
      continue;
    }
    const { text, removed, empty } = removeDenyRules(g.settings, original, g.rules, g.created_keys ?? []);
    let backup: string | null = null;
    if (!opts.dryRun && removed.length) {
      if (g.created_file && empty && !target.link) {
        fs.rmSync(g.settings);
        removeEmptyDirs(g.created_dirs);
      } else {
        backup = backupName(g.settings, (opts.now ?? (() => new Date()))());
        fs.copyFileSync(g.settings, backup, fs.constants.COPYFILE_EXCL);
        writeFileAtomic(target.file, text, fs.statSync(target.file).mode & 0o777);
      }
    }
    guardReport = { settings: g.settings, rules: removed, backup, action: removed.length ? (g.created_file && empty && !target.link ? 'deleted' : 'removed') : 'unchanged' };
  }

  let skillRemoved = false;
  if (!opts.dryRun) {
    manifest.links = keep;
    manifest.guards = guards;
    writeManifest(layout, manifest);
    if (keep.length === 0) {
      fs.rmSync(layout.file, { force: true });
      // the shim only while it is what vaultgate wrote
      if (manifest.shim && fileSha(manifest.shim.path) === manifest.shim.sha256) {
        fs.rmSync(manifest.shim.path);
        removeEmptyDirs([path.dirname(manifest.shim.path)]);
        manifest.shim = null;
        writeManifest(layout, manifest);
      }
      removeEmptyDirs([layout.root, layout.dir]);
      skillRemoved = !lstatOrNull(layout.dir);
    }
  }
  return { runtimes: reports, guard: guardReport, dry_run: opts.dryRun, skill_removed: skillRemoved };
}

function fileSha(file: string): string | null {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return null;
  }
}

function readIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
