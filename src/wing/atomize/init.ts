import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../../errors.js';
import { formatChapters, markNarrative, readChapters, splitChapters, type Chapter } from './chapters.js';
import { files, nowIso, resolveWorkDir, saveState, sha256, WORK_SCHEMA, writeAtomic, type Work, type WorkState } from './work.js';

export interface InitOptions {
  source: string;
  work: string;
  narrative: readonly string[];
  into?: string;
  cwd: string;
  /** The vault's root when one is selected: a SOURCE not found from cwd is looked up there, and a note of the vault is recorded by its vault path. */
  vaultRoot: string | null;
}

export interface InitResult {
  work: string;
  source: WorkState['source'];
  into: string | null;
  chapters: Chapter[];
  narrative: number;
}

/**
 * `atomize init SOURCE --work DIR`: record the source (path, sha256), cut it
 * into chapters and mark the narrative ones. Run again on a changed source it
 * starts the chain afresh (chunks must be cut again); finished extractions of
 * chunks whose text did not change are kept, keyed by their text's hash, and a
 * registry edited by hand is kept. Narrative marks already in chapters.tsv stay.
 */
export function atomizeInit(o: InitOptions): InitResult {
  const file = findSource(o);
  const bytes = fs.readFileSync(file);
  if (!/\.(md|markdown)$/i.test(file)) {
    throw new VaultgateError('INVALID_INPUT', `${file} is not a Markdown file`, { hint: 'Give a .md file (a vault note or a file outside the vault).' });
  }
  const text = bytes.toString('utf8');
  if (Buffer.from(text, 'utf8').compare(bytes) !== 0) throw new VaultgateError('NOT_UTF8', `${file} is not valid UTF-8`, { hint: 'Re-save it as UTF-8 and run init again.' });
  const into = o.into === undefined ? null : checkInto(o.into);
  const dir = resolveWorkDir(o.cwd, o.work);
  if (o.vaultRoot && isInside(dir, o.vaultRoot)) {
    throw new VaultgateError('INVALID_INPUT', `the work folder ${dir} is inside the vault`, {
      hint: 'Give a --work folder outside the vault: the vault is touched only by the proposals `atomize promote` makes.',
    });
  }
  fs.mkdirSync(dir, { recursive: true });
  const f = files(dir);
  const chapters = splitChapters(text);
  // narrative marks already made (by a flag or by hand) survive a re-init
  let previous: Chapter[] = [];
  let old: WorkState | null = null;
  try {
    old = JSON.parse(fs.readFileSync(f.state, 'utf8')) as WorkState;
    previous = readChapters({ dir, state: old });
  } catch {
    previous = [];
  }
  const marked = new Set(previous.filter((c) => c.narrative).map((c) => c.heading.trim().toLowerCase()));
  for (const c of chapters) if (marked.has(c.heading.trim().toLowerCase())) c.narrative = true;
  markNarrative(chapters, o.narrative);
  const vaultPath = o.vaultRoot && isInside(file, o.vaultRoot) ? path.relative(o.vaultRoot, file).split(path.sep).join('/').normalize('NFC') : null;
  const state: WorkState = {
    schema: WORK_SCHEMA,
    source: { file, vault_path: vaultPath, sha256: sha256(bytes), bytes: bytes.byteLength },
    into: into ?? old?.into ?? null,
    created_at: nowIso(),
    ...(old?.registry_generated_sha256 ? { registry_generated_sha256: old.registry_generated_sha256 } : {}),
  };
  const work: Work = { dir, state };
  writeAtomic(f.chapters, formatChapters(chapters));
  // chunks are cut from the source: a new source needs a new cut
  fs.rmSync(f.chunks, { force: true });
  saveState(work);
  return { work: dir, source: state.source, into: state.into, chapters, narrative: chapters.filter((c) => c.narrative).length };
}

function findSource(o: InitOptions): string {
  const tries = [path.resolve(o.cwd, o.source)];
  if (o.vaultRoot && !path.isAbsolute(o.source)) tries.push(path.resolve(o.vaultRoot, o.source));
  for (const t of tries) {
    try {
      if (fs.statSync(t).isFile()) return fs.realpathSync(t);
    } catch {
      // try the next
    }
  }
  throw new VaultgateError('NOT_FOUND', `source ${o.source} not found (looked at ${tries.join(' and ')})`, { hint: 'Give the path of a Markdown file, relative to this folder or to the vault.' });
}

function isInside(file: string, root: string): boolean {
  const rel = path.relative(fs.realpathSync(root), file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** `--into`: a vault-relative folder, `/`-separated, with no `.`/`..` segment. */
export function checkInto(into: string): string {
  const t = into.trim().replace(/\/+$/, '');
  if (t === '' || t.startsWith('/') || t.includes('\\') || t.split('/').some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.'))) {
    throw new VaultgateError('USAGE', `--into ${JSON.stringify(into)} is not a vault folder`, { details: { param: 'into' }, hint: 'Give a vault-relative folder such as `Rules/Book`.' });
  }
  return t.normalize('NFC');
}
