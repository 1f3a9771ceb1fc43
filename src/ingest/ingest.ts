import fs from 'node:fs';
import path from 'node:path';
import { isVaultgateError, VaultgateError } from '../errors.js';
import { fileIndexFromDb, isQueryStopWord, textWords } from '../index/index.js';
import { linkTextFor } from '../links/index.js';
import { readLinkFormat } from '../links/index.js';
import { sourceKind, sourceText, type SourceKind } from '../markdown/source-text.js';
import { capturedPath, ProposalStore, readRecordedSource, recordedSource, type ProposalState } from '../proposals/index.js';
import { rankedNotes } from '../retrieval/index.js';
import type { VaultSession } from '../session/index.js';
import { isMarkdownPath, sha256Hex } from '../vault/index.js';

/**
 * Ingest (issue 22 §3), the read half of claude-obsidian's "drop a source in,
 * get it filed" loop. `ingest SOURCE` writes nothing: it reads the source and
 * answers with what an agent needs to file it as ONE proposal — the capture
 * change, the source's text cut into cited fragments, lexical link suggestions
 * to notes already in the vault, the vault's index and log notes, and where the
 * source stands (already captured? proposed? applied? declined?). The agent
 * then proposes capture + new note + index/log lines together; review's
 * `source` check holds the note's quotes to the captured text.
 *
 * `ingest --list` walks the drop folder (`ingest.drop_folder`, `inbox/` by
 * default) and gives each source's state, so a drop folder can be worked
 * through without losing track.
 */

/** Where a source stands, from the captured folder and the proposal store. */
export type IngestState = 'new' | 'captured' | 'proposed' | 'applied' | 'declined';

export interface IngestStatus {
  state: IngestState;
  /** The captured file, when the bytes are already captured in the vault. */
  captured: boolean;
  /** Proposals that capture these bytes, oldest first. */
  proposals: Array<{ id: string; state: ProposalState }>;
}

export interface Fragment {
  /** `f1`, `f2`, … in source order: stable for the same bytes. */
  id: string;
  /** 1-based inclusive lines of the source text (for HTML: of its Markdown conversion). */
  lines: [number, number];
  /** The headings the fragment is under, outermost first. */
  heading_path: string[];
  text: string;
}

export interface LinkSuggestion {
  path: string;
  /** The link to write from the suggested note: the vault's link format (`.obsidian/app.json`), the shortest text that opens exactly this note. */
  link: string;
  score: number;
  /** The best-matching section's heading path. */
  heading_path: string[];
}

export interface IngestResult {
  source: { path: string; kind: SourceKind | null; bytes: number; sha256: string };
  status: IngestStatus;
  /** The change to put first in the proposal's `changes`, as is (or `propose --capture SOURCE`); its source is the vault path when the source is in the vault. */
  capture: { action: 'capture'; source: string };
  /** Where the capture stores the bytes, and whether they are already there (then leave the capture out). */
  captured: { path: string; existing: boolean };
  /** Where a new note would go (`--into`, default: the vault root), named after the source's title. */
  suggested_note: string;
  /** The source's first heading, or its file name. */
  title: string;
  fragments: Fragment[];
  total_fragments: number;
  suggested_links: LinkSuggestion[];
  /** The vault's index and log notes (`ingest.index_note`, `ingest.log_note`), with the sha256 a proposal bases its lines on; null when not configured. */
  index_note: { path: string; sha256: string | null } | null;
  log_note: { path: string; sha256: string | null } | null;
  warnings: string[];
}

export interface IngestOptions {
  /** Absolute path of the source. */
  source: string;
  /** Vault folder the new note is meant for. */
  into?: string;
  /** Most fragments returned. */
  limit?: number;
}

/** Words of a source too common to suggest links by. */
const MIN_WORD = 4;
const QUERY_WORDS = 12;
const SUGGESTIONS = 8;

export function ingestSource(session: VaultSession, opts: IngestOptions): IngestResult {
  const root = session.root;
  const config = session.config();
  const abs = path.resolve(opts.source);
  const shown = recordedSource(root, abs);
  const bytes = readRecordedSource(root, shown);
  const sha256 = sha256Hex(bytes);
  const kind = sourceKind(abs);
  const warnings: string[] = [];
  let text: string | null = null;
  try {
    text = sourceText(abs, bytes).text;
  } catch (e) {
    if (!isVaultgateError(e)) throw e;
    warnings.push(`${e.message}: the capture is offered, but there is no text to cite or check quotes against`);
  }
  const captured = capturedPath(config, sha256, abs);
  const status = statusOf(session, [{ sha256, captured }]).get(sha256)!;
  if (status.captured) warnings.push(`already captured as ${captured}: the capture adds nothing; propose the note alone, or it is a no-op`);
  const all = text === null ? [] : fragmentsOf(text);
  const limit = opts.limit ?? 200;
  const title = (text === null ? null : firstHeading(text)) ?? path.basename(abs).replace(/\.[^.]+$/, '');
  const into = opts.into === undefined ? '' : opts.into.replace(/^\/+|\/+$/g, '');
  const noteName = title.replace(/[#^[\]|\\/:*?"<>]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120) || sha256.slice(0, 12);
  const note = (name: string | null) => {
    if (name === null) return null;
    let sha: string | null = null;
    try {
      sha = sha256Hex(fs.readFileSync(path.join(root, name)));
    } catch {
      sha = null;
    }
    return { path: name, sha256: sha };
  };
  return {
    source: { path: shown, kind, bytes: bytes.byteLength, sha256 },
    status,
    capture: { action: 'capture', source: shown },
    captured: { path: captured, existing: status.captured },
    suggested_note: `${into ? into + '/' : ''}${noteName}.md`,
    title,
    fragments: all.slice(0, limit),
    total_fragments: all.length,
    suggested_links: text === null ? [] : suggestLinks(session, text, [shown, captured], config.ingest.drop_folder, `${into ? into + '/' : ''}${noteName}.md`),
    index_note: note(config.ingest.index_note),
    log_note: note(config.ingest.log_note),
    warnings,
  };
}

/**
 * The source cut into fragments a note can cite: a heading's section body is
 * cut at blank lines (a paragraph, a list, a table, a fenced block each one
 * fragment); headings are not fragments, they are each fragment's path.
 */
export function fragmentsOf(text: string): Fragment[] {
  const lines = text.split('\n');
  const out: Fragment[] = [];
  const headings: Array<{ level: number; text: string }> = [];
  let start = -1;
  let fence: string | null = null;
  const flush = (end: number) => {
    if (start < 0) return;
    const body = lines.slice(start, end + 1).join('\n').trim();
    if (body !== '') out.push({ id: `f${out.length + 1}`, lines: [start + 1, end + 1], heading_path: headings.map((h) => h.text), text: body });
    start = -1;
  };
  lines.forEach((line, i) => {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (fence !== null) {
      if (f && f[1]!.startsWith(fence)) fence = null;
      return;
    }
    if (f) {
      if (start < 0) start = i;
      fence = f[1]!;
      return;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      flush(i - 1);
      const level = h[1]!.length;
      while (headings.length > 0 && headings[headings.length - 1]!.level >= level) headings.pop();
      headings.push({ level, text: h[2]! });
      return;
    }
    if (line.trim() === '') {
      flush(i - 1);
      return;
    }
    if (start < 0) start = i;
  });
  flush(lines.length - 1);
  return out;
}

function firstHeading(text: string): string | null {
  const m = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text);
  return m ? m[1]! : null;
}

/**
 * Lexical link suggestions (cheap, offline, no vectors): the source's most
 * frequent content words (stop words and words under four letters left out)
 * as one query, ranked by the index's own BM25 search (`rankedNotes`, the
 * core of `search`). Candidates for the agent to judge, never links made. The
 * source itself and the rest of the drop folder are sources, not notes to link.
 */
function suggestLinks(session: VaultSession, text: string, skip: readonly string[], dropFolder: string, from: string): LinkSuggestion[] {
  const counts = new Map<string, number>();
  for (const w of textWords(text)) {
    if (w.length < MIN_WORD || /^\d+$/.test(w) || isQueryStopWord(w)) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const words = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, QUERY_WORDS).map(([w]) => w);
  if (words.length === 0) return [];
  const format = readLinkFormat(session.root).format;
  return session.read((h) => {
    const ranked = rankedNotes(h.db, words.join(' '), { limit: SUGGESTIONS * 2 });
    const files = fileIndexFromDb(h.db);
    const linkTo = (target: string) => {
      try {
        return linkTextFor(files, target, from, format).text;
      } catch {
        return `[[${target.replace(/\.md$/i, '')}]]`; // no text names it alone: the whole path, for the links check to judge
      }
    };
    return ranked.notes
      .filter((n) => !skip.includes(n.path) && !n.path.startsWith(dropFolder + '/') && isMarkdownPath(n.path))
      .slice(0, SUGGESTIONS)
      .map((n) => ({ path: n.path, link: linkTo(n.path), score: Math.round(n.score * 1000) / 1000, heading_path: n.sections[0]?.heading_path ?? [] }));
  }).result;
}

/** The state of each source (by its bytes' SHA-256): captured in the vault, and the proposals that capture it. */
export function statusOf(session: VaultSession, sources: ReadonlyArray<{ sha256: string; captured: string }>): Map<string, IngestStatus> {
  const store = ProposalStore.openExisting(session.root, session.env);
  let rows: ReturnType<ProposalStore['capturesOf']> = [];
  try {
    rows = store ? store.capturesOf(sources.map((s) => s.sha256)) : [];
  } finally {
    store?.close();
  }
  const out = new Map<string, IngestStatus>();
  for (const s of sources) {
    const proposals = rows.filter((r) => r.sha256 === s.sha256).map((r) => ({ id: r.id, state: r.state }));
    let captured = false;
    try {
      captured = sha256Hex(fs.readFileSync(path.join(session.root, s.captured))) === s.sha256;
    } catch {
      captured = false;
    }
    const states = new Set(proposals.map((p) => p.state));
    // the furthest a source has come: in the vault, then waiting for a person, then turned down
    const state: IngestState = states.has('applied')
      ? 'applied'
      : captured
        ? 'captured'
        : states.has('pending') || states.has('blocked') || states.has('recovery')
          ? 'proposed'
          : states.has('declined') || states.has('undone')
            ? 'declined'
            : 'new';
    out.set(s.sha256, { state, captured, proposals });
  }
  return out;
}

export interface DropFolderEntry {
  path: string;
  kind: SourceKind | null;
  bytes: number;
  sha256: string;
  /** Where its capture is (or would be) stored. */
  captured_path: string;
  state: IngestState;
  captured: boolean;
  proposals: Array<{ id: string; state: ProposalState }>;
}

/** Most files `ingest --list` looks at: a drop folder is a queue, not an archive. */
export const MAX_DROP_FILES = 10_000;

/** `ingest --list`: every file in the drop folder (dot-files left out, sub-folders walked), with its state. */
export function listDropFolder(session: VaultSession): { folder: string; sources: DropFolderEntry[]; truncated: boolean } {
  const root = session.root;
  const config = session.config();
  const folder = config.ingest.drop_folder;
  const files: string[] = [];
  let truncated = false;
  const walk = (rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && rel === folder) return;
      throw new VaultgateError('INVALID_INPUT', `cannot read the drop folder ${rel}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { path: rel, hint: 'Check `ingest.drop_folder` in .vaultgate/config.yaml.' });
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue;
      const child = `${rel}/${e.name.normalize('NFC')}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) {
        if (files.length >= MAX_DROP_FILES) {
          truncated = true;
          return;
        }
        files.push(child);
      }
    }
  };
  walk(folder);
  const read = files.map((rel) => {
    const bytes = readRecordedSource(root, rel);
    const sha256 = sha256Hex(bytes);
    return { rel, bytes: bytes.byteLength, sha256, captured: capturedPath(config, sha256, rel) };
  });
  const status = statusOf(session, read);
  return {
    folder,
    sources: read.map((r) => {
      const s = status.get(r.sha256)!;
      return { path: r.rel, kind: sourceKind(r.rel), bytes: r.bytes, sha256: r.sha256, captured_path: r.captured, state: s.state, captured: s.captured, proposals: s.proposals };
    }),
    truncated,
  };
}
