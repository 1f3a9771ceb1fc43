import fs from 'node:fs';
import path from 'node:path';
import { loadYaml } from '../../lazy-require.js';
import { linkTextFor, type FileIndex, type LinkFormat } from '../../links/index.js';
import { linkFoldKey } from '../../links/index.js';
import { normalizeForVerbatim } from '../../markdown/verbatim.js';
import { readChapters, type Chapter } from './chapters.js';
import { readChunks } from './chunk.js';
import { readProgress } from './progress.js';
import { addLinks, planIndex, type LinkTarget } from './links.js';
import { narrativeTest } from './narrative.js';
import { SOURCE_LINE_PREFIX } from '../../markdown/own-lines.js';
import { readRegistry, validateRegistry, type RegistryRow } from './registry.js';
import { files, nowIso, readSource, saveState, writeAtomic, type Work } from './work.js';

/**
 * `atomize write --work DIR`: one draft per registry row in `DIR/notes/` —
 * frontmatter (`source`, `source_sha256`, `kind`, `aliases`), the entity's
 * sentences in source order, one per paragraph, and a `Source:` line linking
 * the chapter headings they come from — then links from the registry
 * (links.ts). An entity whose every sentence comes from a narrative chapter
 * gets no note (and no link). The registry is validated first (as `tidy`).
 * The drafts are written to a fresh folder that replaces `notes/` whole.
 */
export interface WriteResult {
  notes: number;
  entities: number;
  narrative_only: number;
  sentences: number;
  links_added: number;
  /** The vault folder the notes go into; null: the vault's root (init without --into). */
  into: string | null;
}

export interface WriteEnv {
  /** Every file of the vault (vault paths), for link resolution and the clash check. */
  vaultFiles: readonly string[];
  vaultIndex: FileIndex;
  format: LinkFormat;
}

interface Draft {
  row: RegistryRow;
  path: string;
  sentences: { text: string; chapter: string; narrative: boolean }[];
}

export function finalPath(work: Work, note: string): string {
  return work.state.into ? `${work.state.into}/${note}` : note;
}

export function atomizeWrite(work: Work, env: WriteEnv): WriteResult {
  // links are made from the notes' final paths: under --into, or the vault's root without it
  const into = work.state.into;
  const source = readSource(work);
  const chapters = readChapters(work);
  const chunks = readChunks(work);
  const { rows, sha256: registrySha } = readRegistry(work);
  validateRegistry(rows, into, env.vaultIndex, files(work.dir).registry);
  const narrative = narrativeTest(source, chapters);
  const chapterOf = new Map(chunks.map((c) => [c.id, c.chapter] as const));
  const narrativeChapter = new Set(chapters.filter((c) => c.narrative).map((c) => c.id));
  const sourceNorm = normalizeForVerbatim(source);

  // every done chunk's entities, matched to rows by name and alias (folded)
  const rowByKey = new Map<string, RegistryRow>();
  for (const r of rows) for (const t of [r.name, ...r.aliases]) rowByKey.set(linkFoldKey(t), r);
  const drafts = new Map<RegistryRow, Draft>(rows.filter((r) => r.note !== '').map((r) => [r, { row: r, path: finalPath(work, r.note), sentences: [] }]));
  chunks.forEach((c) => {
    const p = readProgress(work, c);
    if (p?.status !== 'done') return;
    for (const e of p.entities ?? []) {
      const row = [e.name, ...e.aliases].map((t) => rowByKey.get(linkFoldKey(t))).find((r) => r !== undefined);
      const d = row ? drafts.get(row) : undefined;
      if (!d) continue;
      for (const s of e.sentences.map(asLine).filter(Boolean)) d.sentences.push({ text: s, chapter: chapterOf.get(c.id) ?? '', narrative: narrativeChapter.has(chapterOf.get(c.id) ?? '') || narrative.fromNarrative(s) });
    }
  });
  // source order, each sentence once
  for (const d of drafts.values()) {
    const seen = new Set<string>();
    const keyed = d.sentences
      .map((s, i) => ({ s, i, n: normalizeForVerbatim(s.text) }))
      .filter(({ n }) => (seen.has(n) ? false : (seen.add(n), true)))
      .map((x) => ({ ...x, at: sourceNorm.indexOf(x.n) }));
    keyed.sort((a, b) => (a.at < 0 ? Infinity : a.at) - (b.at < 0 ? Infinity : b.at) || a.i - b.i);
    d.sentences = keyed.map((k) => k.s);
  }
  const written = [...drafts.values()].filter((d) => d.sentences.some((s) => !s.narrative));
  const index = planIndex(env.vaultFiles, written.map((d) => d.path));
  const targets: LinkTarget[] = written.map((d) => ({ path: d.path, terms: [d.row.name, ...d.row.aliases] }));
  const f = files(work.dir);
  const fresh = `${f.notes}.new`;
  fs.rmSync(fresh, { recursive: true, force: true });
  let linksAdded = 0;
  let sentences = 0;
  const notePaths: string[] = [];
  for (const d of written) {
    const body = render(work, d, chapters, index);
    const linked = addLinks(body, d.path, targets, index, env.format);
    linksAdded += linked.added;
    sentences += d.sentences.length;
    writeAtomic(path.join(fresh, d.row.note), linked.text);
    notePaths.push(d.row.note);
  }
  fs.mkdirSync(fresh, { recursive: true });
  const old = `${f.notes}.old`;
  fs.rmSync(old, { recursive: true, force: true });
  if (fs.existsSync(f.notes)) fs.renameSync(f.notes, old);
  fs.renameSync(fresh, f.notes);
  fs.rmSync(old, { recursive: true, force: true });
  work.state.write = { registry_sha256: registrySha, notes: notePaths.sort(), links_added: linksAdded, narrative: narrative.chapters, into, at: nowIso() };
  delete work.state.strip;
  saveState(work);
  return { notes: written.length, entities: rows.length, narrative_only: drafts.size - written.length, sentences, links_added: linksAdded, into };
}

function render(work: Work, d: Draft, chapters: readonly Chapter[], index: FileIndex): string {
  const { stringify } = loadYaml();
  const src = work.state.source;
  const fm = stringify({ source: src.vault_path ?? path.basename(src.file), source_sha256: src.sha256, kind: d.row.kind, aliases: d.row.aliases }).trimEnd();
  const from = [...new Set(d.sentences.filter((s) => !s.narrative).map((s) => s.chapter))];
  const heads = chapters.filter((c) => from.includes(c.id));
  return ['---', fm, '---', `# ${d.row.name}`, '', ...d.sentences.flatMap((s) => [s.text, '']), sourceLine(work, heads, d.path, index), ''].join('\n');
}

/** `Source: [[Book#Chapter|Chapter]]` for a source in the vault; the file name and headings as text otherwise. */
export function sourceLine(work: Work, heads: readonly Chapter[], from: string, index: FileIndex): string {
  const src = work.state.source;
  const parts: string[] = [];
  let bookLink: string | null = null;
  if (src.vault_path) {
    try {
      bookLink = linkTextFor(index, src.vault_path, from).path;
    } catch {
      bookLink = null;
    }
  }
  for (const h of heads) {
    if (bookLink !== null && h.heading === '') parts.push(`[[${bookLink}]]`);
    else if (bookLink !== null && !/[[\]|#^]/.test(h.heading)) parts.push(`[[${bookLink}#${h.heading}|${h.heading}]]`);
    else parts.push(`${path.basename(src.vault_path ?? src.file)}${h.heading ? ` › ${h.heading}` : ''}`);
  }
  if (parts.length === 0) parts.push(bookLink !== null ? `[[${bookLink}]]` : path.basename(src.file));
  return SOURCE_LINE_PREFIX + parts.join(', ');
}

/**
 * A sentence as one draft line: inner line breaks folded, and no leading
 * heading marker (a "heading" would escape the verbatim check, which skips headings).
 */
function asLine(sentence: string): string {
  return sentence.replace(/\s*\r?\n\s*/g, ' ').replace(/^#{1,6}\s+/, '').trim();
}
