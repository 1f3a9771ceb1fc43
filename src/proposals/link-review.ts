import { anchorLookupFromDb, fileIndexFromDb, nameKey, type Db } from '../index/index.js';
import { buildFileIndex, isExternalLink, resolveLink, type AnchorLookup, type FileIndex, type LinkResolution } from '../links/index.js';
import { parseNote, type Link, type NoteModel } from '../markdown/index.js';
import type { ReviewCheck } from '../policy/index.js';
import { isExcluded, isMarkdownPath, type VaultConfig } from '../vault/index.js';
import type { BrokenLink, ReviewLink, StoredChange } from './types.js';

/**
 * The `links` check (issue #8 §2): the links a change adds or removes, and the
 * links it breaks, resolved exactly as Obsidian would *after* the change. The
 * vault after the change is a view, never a write: the index's file list with
 * the proposal's deletes, moves and creates applied, and the headings of every
 * changed note taken from its new text.
 *
 * Rules: a new link that is ambiguous, or names a heading or block its target
 * does not have, blocks; a new link to a note that does not exist warns (people
 * link to notes they mean to write); a link that resolves today and will not
 * after the change (a heading removed, a note deleted or moved, a name now
 * shared) warns, and is listed in `links_broken`.
 */

export interface FileLinks {
  links_added: ReviewLink[];
  links_removed: ReviewLink[];
  links_broken: BrokenLink[];
}

export interface LinkReview {
  checks: ReviewCheck[];
  /** Per change, in order. */
  files: FileLinks[];
  /** Deleted path → links into it from other notes (for the shrink check). */
  backlinks: Map<string, number>;
}

const stripBom = (t: string) => (t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);

/** Whether a resolution is one a person would call working. */
function works(r: Pick<LinkResolution, 'status' | 'subpath'>): boolean {
  return (r.status === 'resolved' || r.status === 'unindexed') && r.subpath?.exists !== false;
}

function brokenReason(r: LinkResolution): string {
  if (r.status === 'ambiguous') return 'ambiguous';
  if (r.status === 'unresolved') return 'unresolved';
  return 'missing_anchor';
}

function reviewLink(link: Link, r: LinkResolution | null): ReviewLink {
  return {
    line: link.startLine,
    kind: link.kind,
    raw: link.raw,
    status: r === null ? (isExternalLink(link) ? 'external' : null) : r.status,
    target: r?.target ?? null,
    candidates: r?.candidates ?? null,
    subpath: r?.subpath ? { kind: r.subpath.kind, value: r.subpath.value, exists: r.subpath.exists } : null,
  };
}

/** Links of `a` not matched by one in `b` (as written: kind and raw text), keeping order. */
function unmatched(a: readonly Link[], b: readonly Link[]): { only: Link[]; pairs: Array<[Link, Link]> } {
  const pool = new Map<string, Link[]>();
  for (const l of b) {
    const k = `${l.kind}\0${l.raw}`;
    pool.set(k, [...(pool.get(k) ?? []), l]);
  }
  const only: Link[] = [];
  const pairs: Array<[Link, Link]> = [];
  for (const l of a) {
    const list = pool.get(`${l.kind}\0${l.raw}`);
    if (list && list.length > 0) pairs.push([l, list.shift()!]);
    else only.push(l);
  }
  return { only, pairs };
}

interface IncomingRow {
  source: string;
  kind: Link['kind'];
  raw: string;
  path: string;
  subpath: string | null;
  start_line: number;
  resolution: string;
}

/** Parses a note's text (a leading U+FEFF stripped); review shares one memo between its checks. */
export type NoteParser = (text: string) => NoteModel;

export function reviewLinks(db: Db, config: VaultConfig, changes: readonly StoredChange[], parseText: NoteParser = (t) => parseNote(stripBom(t))): LinkReview {
  const parse = (text: string | null): NoteModel | null => (text === null ? null : parseText(text));
  const files: FileLinks[] = changes.map(() => ({ links_added: [], links_removed: [], links_broken: [] }));
  const checks: ReviewCheck[] = [];
  const backlinks = new Map<string, number>();

  // The vault before (the index) and after (a view with the changes applied).
  const before: FileIndex = fileIndexFromDb(db);
  const dbAnchors = anchorLookupFromDb(db);
  const removed = new Set<string>();
  const added: string[] = [];
  const newModels = new Map<string, NoteModel | null>();
  const movedFrom = new Map<string, string>(); // to → from
  for (const c of changes) {
    if (c.action === 'delete') removed.add(c.path);
    if (c.action === 'move') (removed.add(c.path), added.push(c.to!), movedFrom.set(c.to!, c.path));
    if (c.action === 'write' && c.base_sha256 === null) added.push(c.path);
    if (c.action === 'write' && isMarkdownPath(c.path)) newModels.set(c.path, parse(c.new_text));
  }
  const after: FileIndex = buildFileIndex([
    ...before.files.filter((f) => !removed.has(f.path)).map((f) => ({ path: f.path, indexed: f.indexed })),
    ...added.map((p) => ({ path: p, indexed: !isExcluded(config, p) })),
  ]);
  const anchorsAfter: AnchorLookup = (p) => {
    if (newModels.has(p)) return newModels.get(p)!;
    if (removed.has(p)) return null;
    const from = movedFrom.get(p);
    return from !== undefined ? dbAnchors(from) : dbAnchors(p);
  };

  const changedSources = new Set(changes.map((c) => c.path));
  const fileIndexOf = new Map<string, number>();
  changes.forEach((c, i) => {
    fileIndexOf.set(c.path, i);
    if (c.to) fileIndexOf.set(c.to, i);
  });

  // 1. The links of each written note: added, removed, and kept ones that stop working.
  changes.forEach((c, i) => {
    if (!isMarkdownPath(c.path) || c.action === 'move') return;
    const oldModel = parse(c.old_text);
    const newModel = c.action === 'write' ? newModels.get(c.path)! : null;
    const oldLinks = oldModel?.links ?? [];
    const newLinks = newModel?.links ?? [];
    const anchorsBefore: AnchorLookup = (p) => (p === c.path && oldModel ? oldModel : dbAnchors(p));
    const gained = unmatched(newLinks, oldLinks);
    const lost = unmatched(oldLinks, newLinks);
    for (const link of lost.only) files[i]!.links_removed.push({ ...reviewLink(link, null), status: null });
    for (const link of gained.only) {
      if (isExternalLink(link)) {
        files[i]!.links_added.push(reviewLink(link, null));
        continue;
      }
      const r = resolveLink(after, link, c.path, anchorsAfter);
      files[i]!.links_added.push(reviewLink(link, r));
      const at = `${c.path}:${link.startLine}`;
      if (r.status === 'ambiguous') {
        checks.push({
          name: 'links',
          ok: false,
          severity: 'block',
          path: c.path,
          message: `${at}: new link ${link.raw} is ambiguous (${r.candidates!.join(', ')}); Obsidian's pick is undetermined — give the path`,
          details: { raw: link.raw, line: link.startLine, candidates: r.candidates },
        });
      } else if (r.status === 'resolved' && r.subpath?.exists === false) {
        checks.push({
          name: 'links',
          ok: false,
          severity: 'block',
          path: c.path,
          message: `${at}: new link ${link.raw} names a ${r.subpath.kind} ${JSON.stringify(r.subpath.value)} that ${r.target} does not have`,
          details: { raw: link.raw, line: link.startLine, target: r.target, subpath: r.subpath },
        });
      } else if (r.status === 'unresolved') {
        checks.push({
          name: 'links',
          ok: false,
          severity: 'warn',
          path: c.path,
          message: `${at}: new link ${link.raw} points to a note that does not exist (yet)`,
          details: { raw: link.raw, line: link.startLine },
        });
      }
    }
    // links kept as written whose answer changes for the worse (e.g. `[[#H]]` after H is removed)
    for (const [nl, ol] of gained.pairs) {
      if (isExternalLink(nl)) continue;
      const was = resolveLink(before, ol, c.path, anchorsBefore);
      const now = resolveLink(after, nl, c.path, anchorsAfter);
      if (works(was) && !works(now)) files[i]!.links_broken.push({ source: c.path, line: nl.startLine, raw: nl.raw, reason: brokenReason(now), target: was.target });
    }
  });

  // 2. A moved note's own links, read from its new folder (relative links may break).
  changes.forEach((c, i) => {
    if (c.action !== 'move' || !isMarkdownPath(c.path)) return;
    const model = parse(c.old_text);
    for (const link of model?.links ?? []) {
      if (isExternalLink(link)) continue;
      const was = resolveLink(before, link, c.path, (p) => (p === c.path ? model : dbAnchors(p)));
      const now = resolveLink(after, link, c.to!, anchorsAfter);
      if (works(was) && !works(now)) files[i]!.links_broken.push({ source: c.to!, line: link.startLine, raw: link.raw, reason: brokenReason(now), target: was.target });
    }
  });

  // 3. Links in other notes into what changes: a changed note (its headings), a
  //    deleted or moved one, or a name a new file now shares.
  const targets = changes.filter((c) => c.base_sha256 !== null).map((c) => c.path);
  const names = added.map((p) => nameKey(p));
  if (targets.length > 0 || names.length > 0) {
    const rows = db
      .prepare(
        `SELECT f.path AS source, l.kind, l.raw, l.path, l.subpath, l.start_line, l.resolution
         FROM links l JOIN files f ON f.id = l.file_id
         WHERE f.kind = 'note' AND l.external = 0 AND l.resolution IS NOT NULL
           AND (l.target IN (SELECT value FROM json_each(?)) OR l.name_key IN (SELECT value FROM json_each(?)))
         ORDER BY f.path, l.ord`,
      )
      .all(JSON.stringify(targets), JSON.stringify(names)) as IncomingRow[];
    for (const row of rows) {
      const was = JSON.parse(row.resolution) as LinkResolution;
      if (was.target !== null && removed.has(was.target) && row.source !== was.target && was.status === 'resolved') {
        backlinks.set(was.target, (backlinks.get(was.target) ?? 0) + 1);
      }
      if (changedSources.has(row.source)) continue; // its own links were reviewed from its new text
      const now = resolveLink(after, { kind: row.kind, path: row.path, subpath: row.subpath }, row.source, anchorsAfter);
      const owner = fileIndexOf.get(was.target ?? '') ?? fileIndexOf.get(now.target ?? '') ?? 0;
      if (works(was) && !works(now)) {
        files[owner]!.links_broken.push({ source: row.source, line: row.start_line, raw: row.raw, reason: brokenReason(now), target: was.target });
      } else if (works(was) && works(now) && was.target !== now.target && !(was.target !== null && movedFrom.get(now.target ?? '') === was.target)) {
        files[owner]!.links_broken.push({ source: row.source, line: row.start_line, raw: row.raw, reason: 'retargeted', target: was.target });
      }
    }
  }

  changes.forEach((c, i) => {
    const broken = files[i]!.links_broken;
    if (broken.length === 0) return;
    const shown = broken.slice(0, 5).map((b) => `${b.source}:${b.line} ${b.raw} (${b.reason.replace('_', ' ')})`);
    checks.push({
      name: 'links',
      ok: false,
      severity: 'warn',
      path: c.to ?? c.path,
      message: `the change breaks ${broken.length} link${broken.length > 1 ? 's' : ''} that work today: ${shown.join('; ')}${broken.length > 5 ? '; …' : ''}`,
      details: { count: broken.length },
    });
  });
  if (checks.length === 0) checks.push({ name: 'links', ok: true, severity: 'block', message: 'every new link resolves, and no working link breaks' });
  return { checks, files, backlinks };
}
