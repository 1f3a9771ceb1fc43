import {
  checkFileArg,
  linkFoldKey,
  noteLinks,
  readLinkArgs,
  readNoteArg,
  resolveLink,
  type BacklinkReport,
  type LinkResolution,
  type NoteLinkReport,
  type ResolveResult,
  type VaultHealth,
} from '../links/index.js';
import type { LinkKind } from '../markdown/index.js';
import type { Db } from './db.js';
import type { IndexWarning } from './refresh.js';
import { anchorLookupFromDb, fileIndexFromDb } from './relink.js';

/**
 * `resolve`, `links`, `backlinks`, `check` answered from the index: the same
 * shapes as the direct implementations in src/links (which scan and parse the
 * whole vault per call), computed from the stored link resolutions. The corpus
 * test checks that both agree link for link.
 */

interface LinkRow {
  source: string;
  ord: number;
  kind: LinkKind;
  raw: string;
  path: string;
  start_line: number;
  in_comment: number;
  property: string | null;
  external: number;
  status: string | null;
  target: string | null;
  resolution: string | null;
}

const LINK_COLUMNS = `f.path AS source, l.ord, l.kind, l.raw, l.path, l.start_line, l.in_comment, l.property, l.external, l.status, l.target, l.resolution`;

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const bySource = (a: LinkRow, b: LinkRow) => byPath(a.source, b.source) || a.ord - b.ord;

function report(row: LinkRow): NoteLinkReport {
  const base = { line: row.start_line, kind: row.kind, raw: row.raw, path: row.path, in_comment: row.in_comment === 1, property: row.property };
  if (row.external === 1 || row.resolution === null) {
    return { ...base, status: 'external', target: null, candidates: null, rule: null, subpath: null };
  }
  const r = JSON.parse(row.resolution) as LinkResolution;
  return { ...base, status: r.status, target: r.target, candidates: r.candidates, rule: r.rule, subpath: r.subpath };
}

/** Only the warnings the direct implementation reports (scan and read problems, not NFC twins). */
function readWarnings(warnings: IndexWarning[]): IndexWarning[] {
  return warnings.filter((w) => w.code !== 'NFC_COLLISION').map(({ path, code, message }) => ({ path, code, message }));
}

export function resolveFromIndex(db: Db, root: string, linkText: string, from: string | undefined, warnings: IndexWarning[]): ResolveResult {
  const { source, syntax } = readLinkArgs(root, linkText, from);
  const r = resolveLink(fileIndexFromDb(db), syntax, source, anchorLookupFromDb(db));
  return {
    link: linkText,
    from: source,
    kind: syntax.kind,
    status: r.status,
    target: r.target,
    candidates: r.candidates,
    rule: r.rule,
    subpath: r.subpath,
    warnings: readWarnings(warnings).filter((w) => w.path === r.target),
  };
}

/** `links NOTE`. A note the index does not hold (excluded, unreadable) is answered directly. */
export function noteLinksFromIndex(db: Db, root: string, note: string, warnings: IndexWarning[]) {
  const file = readNoteArg(root, note);
  const kind = db.prepare('SELECT kind FROM files WHERE path = ?').pluck().get(file.path);
  if (kind !== 'note') return noteLinks(root, note);
  const rows = db.prepare(`SELECT ${LINK_COLUMNS} FROM links l JOIN files f ON f.id = l.file_id WHERE f.path = ? ORDER BY l.ord`).all(file.path) as LinkRow[];
  return { note: file.path, links: rows.map(report), warnings: readWarnings(warnings) };
}

/** `backlinks NOTE`: links whose target is NOTE, and apart the ambiguous ones listing it as a candidate. */
export function backlinksFromIndex(db: Db, root: string, note: string, warnings: IndexWarning[]) {
  const target = checkFileArg(root, note);
  const hits = db.prepare(`SELECT ${LINK_COLUMNS} FROM links l JOIN files f ON f.id = l.file_id WHERE l.target = ? AND f.kind = 'note'`).all(target) as LinkRow[];
  const ambiguous = (
    db
      .prepare(`SELECT ${LINK_COLUMNS} FROM links l JOIN files f ON f.id = l.file_id WHERE l.status = 'ambiguous' AND f.kind = 'note'`)
      .all() as LinkRow[]
  ).filter((row) => (JSON.parse(row.resolution!) as LinkResolution).candidates?.includes(target));
  const toReport = (row: LinkRow): BacklinkReport => {
    const r = JSON.parse(row.resolution!) as LinkResolution;
    return {
      source: row.source,
      line: row.start_line,
      kind: row.kind,
      raw: row.raw,
      status: r.status,
      candidates: r.candidates,
      subpath: r.subpath,
      in_comment: row.in_comment === 1,
      property: row.property,
    };
  };
  return {
    note: target,
    backlinks: hits.sort(bySource).map(toReport),
    ambiguous: ambiguous.sort(bySource).map(toReport),
    warnings: readWarnings(warnings),
  };
}

/** `check`: the vault's link health from the stored resolutions (see checkVault in src/links for the definitions). */
export function checkFromIndex(db: Db, warnings: IndexWarning[]): VaultHealth {
  const files = db.prepare('SELECT path, kind, frontmatter_error FROM files').all() as { path: string; kind: string; frontmatter_error: string | null }[];
  files.sort((a, b) => byPath(a.path, b.path));
  const notes = files.filter((f) => f.kind === 'note' || f.kind === 'unreadable').map((f) => f.path);
  const readable = new Set(files.filter((f) => f.kind === 'note').map((f) => f.path));
  const rows = (db.prepare(`SELECT ${LINK_COLUMNS} FROM links l JOIN files f ON f.id = l.file_id WHERE f.kind = 'note'`).all() as LinkRow[]).sort(bySource);
  const items: VaultHealth['items'] = { unresolved: [], ambiguous: [], unindexed: [], broken_anchors: [], orphans: [], invalid_frontmatter: [], collisions: [] };
  const counts = { links: 0, resolved: 0, unresolved: 0, ambiguous: 0, unindexed: 0, external: 0 };
  const linked = new Set<string>();
  for (const f of files) {
    if (f.kind !== 'note' || f.frontmatter_error === null) continue;
    const e = JSON.parse(f.frontmatter_error) as { line: number; column: number; code: string; message: string };
    items.invalid_frontmatter.push({ path: f.path, line: e.line, column: e.column, code: e.code, message: e.message });
  }
  for (const row of rows) {
    counts.links++;
    if (row.external === 1 || row.resolution === null) {
      counts.external++;
      continue;
    }
    const r = JSON.parse(row.resolution) as LinkResolution;
    counts[r.status]++;
    const at = { source: row.source, line: row.start_line, raw: row.raw };
    if (r.status === 'unresolved') items.unresolved.push({ ...at, path: row.path });
    if (r.status === 'ambiguous') items.ambiguous.push({ ...at, candidates: r.candidates! });
    if (r.status === 'unindexed' && r.target !== null) items.unindexed.push({ ...at, target: r.target });
    if (r.status === 'resolved' && r.subpath !== null && r.subpath.exists === false) items.broken_anchors.push({ ...at, target: r.target!, subpath: r.subpath });
    const targets = r.status === 'ambiguous' ? r.candidates! : r.target !== null ? [r.target] : [];
    for (const t of targets) if (t !== row.source) linked.add(t);
  }
  items.orphans = notes.filter((p) => !linked.has(p) && readable.has(p));
  const nfc = warnings.filter((w) => w.code === 'NFC_COLLISION' && w.paths).map((w) => w.paths!.slice().sort());
  for (const paths of nfc) items.collisions.push({ kind: 'nfc', paths });
  const byFold = new Map<string, string[]>();
  for (const f of files) byFold.set(linkFoldKey(f.path), [...(byFold.get(linkFoldKey(f.path)) ?? []), f.path]);
  for (const paths of byFold.values()) if (paths.length > 1) items.collisions.push({ kind: 'case', paths: paths.sort() });
  const reported = readWarnings(warnings);
  return {
    counts: {
      notes: notes.length,
      files: files.length,
      ...counts,
      broken_anchors: items.broken_anchors.length,
      orphans: items.orphans.length,
      invalid_frontmatter: items.invalid_frontmatter.length,
      collisions: items.collisions.length,
      warnings: reported.length,
    },
    items,
    warnings: reported,
  };
}
