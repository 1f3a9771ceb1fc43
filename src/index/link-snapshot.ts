import { VaultgateError } from '../errors.js';
import type { LinkKind } from '../markdown/index.js';
import type { Db } from './db.js';

/**
 * The whole vault's link resolution, saved (`vaultgate links --snapshot`) and
 * compared later (`vaultgate check --links-baseline FILE`): after a sync, a bulk
 * edit or a move made outside vaultgate, every link whose target changed.
 *
 * A link is identified by its note, its kind and its text as written, and its
 * place among the links of that note written the same way (the second
 * `[[Rules]]` of a note is the second one again), not by its line: an edit
 * above it moves its line and does not make it another link. External links
 * (`https:` …) are not vault links and are left out.
 */
export const LINK_SNAPSHOT_SCHEMA = 'vaultgate.link-snapshot.v1';

/** One link: kind, text as written, line, status, target (null when it opens no file). */
export type SnapshotLink = [kind: LinkKind, raw: string, line: number, status: string, target: string | null];

export interface LinkSnapshot {
  schema: typeof LINK_SNAPSHOT_SCHEMA;
  taken_at: string;
  /** Notes and links in the snapshot. */
  notes: number;
  links: number;
  /** Note path → its links, in order. */
  sources: Record<string, SnapshotLink[]>;
}

interface Row {
  source: string;
  kind: LinkKind;
  raw: string;
  start_line: number;
  status: string;
  target: string | null;
}

const LINK_ROWS = `SELECT f.path AS source, l.kind, l.raw, l.start_line, l.status, l.target
  FROM files f JOIN links l ON l.file_id = f.id
  WHERE f.kind = 'note' AND l.external = 0 AND l.status IS NOT NULL
  ORDER BY f.path, l.ord`;

/** Every note's links with what they resolve to now, from the index (refreshed by the caller). */
export function linkSnapshot(db: Db, takenAt: string = new Date().toISOString()): LinkSnapshot {
  const sources: Record<string, SnapshotLink[]> = Object.create(null);
  let links = 0;
  for (const r of db.prepare(LINK_ROWS).iterate() as IterableIterator<Row>) {
    (sources[r.source] ??= []).push([r.kind, r.raw, r.start_line, r.status, r.target]);
    links++;
  }
  const notes = db.prepare(`SELECT count(*) FROM files WHERE kind = 'note'`).pluck().get() as number;
  return { schema: LINK_SNAPSHOT_SCHEMA, taken_at: takenAt, notes, links, sources: { ...sources } };
}

/** A link whose answer is not the one the baseline recorded. */
export interface BaselineChange {
  source: string;
  /** Line now (the baseline's line is `before.line`). */
  line: number;
  kind: LinkKind;
  raw: string;
  before: { line: number; status: string; target: string | null };
  after: { status: string; target: string | null };
}

export interface BaselineReport {
  taken_at: string;
  /** Links found in both the baseline and the vault now, compared one by one. */
  compared: number;
  /** Every compared link whose status or target changed, by note and line. */
  changed: BaselineChange[];
  /** Notes of the baseline that are not in the vault now (moved, renamed or deleted), with how many links they held. */
  notes_gone: Array<{ path: string; links: number }>;
  /** Notes in the vault now that the baseline does not have. */
  notes_new: number;
  /** Links of notes in both that were removed or added since (edited text), counted. */
  links_gone: number;
  links_new: number;
}

function bad(file: string, why: string): VaultgateError {
  return new VaultgateError('INVALID_INPUT', `${file} is not a link snapshot: ${why}`, {
    details: { file },
    hint: 'Give a file written by `vaultgate links --snapshot FILE`.',
  });
}

/** Check the shape of a parsed snapshot document (from JSON); a typed error names what is wrong. */
export function readLinkSnapshot(doc: unknown, file: string): LinkSnapshot {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw bad(file, 'not a JSON object');
  const o = doc as Record<string, unknown>;
  if (o.schema !== LINK_SNAPSHOT_SCHEMA) throw bad(file, `schema is ${JSON.stringify(o.schema)}, expected ${JSON.stringify(LINK_SNAPSHOT_SCHEMA)}`);
  if (typeof o.taken_at !== 'string') throw bad(file, 'taken_at is missing');
  const sources = o.sources;
  if (sources === null || typeof sources !== 'object' || Array.isArray(sources)) throw bad(file, 'sources is not an object');
  for (const [path, list] of Object.entries(sources as Record<string, unknown>)) {
    if (!Array.isArray(list)) throw bad(file, `sources[${JSON.stringify(path)}] is not a list`);
    for (const l of list) {
      const ok =
        Array.isArray(l) &&
        l.length === 5 &&
        typeof l[0] === 'string' &&
        typeof l[1] === 'string' &&
        Number.isInteger(l[2]) &&
        typeof l[3] === 'string' &&
        (l[4] === null || typeof l[4] === 'string');
      if (!ok) throw bad(file, `a link of ${JSON.stringify(path)} is not [kind, raw, line, status, target]`);
    }
  }
  return o as unknown as LinkSnapshot;
}

const key = (kind: string, raw: string) => `${kind}\0${raw}`;

/** The vault's links now against a baseline: every link whose answer changed, and what came and went. */
export function compareLinkSnapshot(db: Db, baseline: LinkSnapshot): BaselineReport {
  const now = linkSnapshot(db);
  const changed: BaselineChange[] = [];
  const notesGone: BaselineReport['notes_gone'] = [];
  let compared = 0;
  let linksGone = 0;
  let linksNew = 0;
  for (const [source, old] of Object.entries(baseline.sources)) {
    const cur = Object.hasOwn(now.sources, source) ? now.sources[source]! : null;
    if (cur === null) {
      // a note without links is not in `sources`: gone only when the file is gone
      const exists = db.prepare(`SELECT 1 FROM files WHERE path = ? AND kind = 'note'`).get(source) !== undefined;
      if (!exists) notesGone.push({ path: source, links: old.length });
      else linksGone += old.length;
      continue;
    }
    // the n-th link written the same way is the same link
    const pool = new Map<string, SnapshotLink[]>();
    for (const l of cur) {
      const k = key(l[0], l[1]);
      const list = pool.get(k);
      if (list) list.push(l);
      else pool.set(k, [l]);
    }
    let matched = 0;
    for (const b of old) {
      const a = pool.get(key(b[0], b[1]))?.shift();
      if (a === undefined) {
        linksGone++;
        continue;
      }
      matched++;
      compared++;
      if (a[3] !== b[3] || a[4] !== b[4]) {
        changed.push({ source, line: a[2], kind: a[0], raw: a[1], before: { line: b[2], status: b[3], target: b[4] }, after: { status: a[3], target: a[4] } });
      }
    }
    linksNew += cur.length - matched;
  }
  let notesNew = 0;
  for (const [source, list] of Object.entries(now.sources)) {
    if (Object.hasOwn(baseline.sources, source)) continue;
    notesNew++;
    linksNew += list.length;
  }
  notesGone.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { taken_at: baseline.taken_at, compared, changed, notes_gone: notesGone, notes_new: notesNew, links_gone: linksGone, links_new: linksNew };
}
