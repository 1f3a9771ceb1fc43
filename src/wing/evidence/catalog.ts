import crypto from 'node:crypto';
import { VaultgateError, isVaultgateError } from '../../errors.js';
import { readNoteArg } from '../../links/index.js';
import { parseNote } from '../../markdown/index.js';
import { readVaultBytes, sha256Hex, type NoteFile } from '../../vault/index.js';
import { answerJsonSchema } from './answer-schema.js';
import { noteFragments } from './fragments.js';
import { buildMessages } from './prompt.js';
import { CATALOG_VERSION, type Catalog, type Fragment, type Side } from './types.js';

/** The largest note a catalog takes whole (bytes): the catalog never cuts a note, so a bigger one is refused. */
export const MAX_CATALOG_NOTE_BYTES = 1024 * 1024;
/** Fragments per side; past it the rest are counted in `fragments_omitted` (the texts stay whole). */
export const DEFAULT_MAX_FRAGMENTS = 1000;
export const DEFAULT_TTL_DAYS = 7;
export const DEFAULT_QUESTION = 'How are note A and note B related? Should one of them link to the other, are they duplicates, or are they unrelated?';

export interface PrepareOptions {
  question?: string;
  maxFragments?: number;
  ttlDays?: number;
  /** @internal Tests pin the randomness. */
  random?: (bytes: number) => Buffer;
  now?: Date;
}

/**
 * Build an evidence catalog for two notes (DESIGN §5.3): both texts whole,
 * their hashes, the fragments with ids `<nonce>:A:<n>` / `<nonce>:B:<n>`, the
 * answer schema with those ids, and the exact request. Reads the two notes
 * (strictly: inside the vault, no symlinks, UTF-8) and nothing else.
 */
export function prepareCatalog(root: string, pathA: string, pathB: string, opts: PrepareOptions = {}): Catalog {
  const a = readSide(root, pathA);
  const b = readSide(root, pathB);
  if (a.path === b.path) {
    throw new VaultgateError('USAGE', `A and B are the same note (${a.path})`, { hint: 'Give two different notes.' });
  }
  const random = opts.random ?? crypto.randomBytes;
  const nonce = random(4).toString('hex');
  const catalogId = `cat-${random(8).toString('hex')}`;
  const max = opts.maxFragments ?? DEFAULT_MAX_FRAGMENTS;
  const omitted = { A: 0, B: 0 };
  const fragments: Fragment[] = [];
  for (const [side, note] of [['A', a], ['B', b]] as const) {
    const all = noteFragments(note.text, parseNote(note.text));
    omitted[side] = Math.max(0, all.length - max);
    all.slice(0, max).forEach((f, n) => fragments.push({ id: `${nonce}:${side}:${n}`, side, ...f }));
  }
  const idsOf = (side: Side) => fragments.filter((f) => f.side === side && !f.ambiguous).map((f) => f.id);
  const answerSchema = answerJsonSchema({ a: idsOf('A'), b: idsOf('B') });
  const question = opts.question?.trim() || DEFAULT_QUESTION;
  const now = opts.now ?? new Date();
  const ttlDays = opts.ttlDays ?? DEFAULT_TTL_DAYS;
  return {
    catalog_id: catalogId,
    nonce,
    version: CATALOG_VERSION,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlDays * 86_400_000).toISOString(),
    question,
    sides: { A: { path: a.path, sha256: a.sha256, text: a.text }, B: { path: b.path, sha256: b.sha256, text: b.text } },
    fragments,
    fragments_omitted: omitted,
    answer_schema: answerSchema,
    request: { messages: buildMessages({ question, answerSchema, a, b, fragments }) },
  };
}

function readSide(root: string, input: string): NoteFile {
  const note = readNoteArg(root, input);
  if (note.size > MAX_CATALOG_NOTE_BYTES) {
    throw new VaultgateError('FILE_TOO_LARGE', `${note.path} is ${note.size} bytes; a catalog takes notes up to ${MAX_CATALOG_NOTE_BYTES} bytes whole, and never cuts one`, {
      path: note.path,
      details: { size: note.size, limit: MAX_CATALOG_NOTE_BYTES },
      hint: 'Split the note, or relate a smaller one.',
    });
  }
  return note;
}

/**
 * Both notes must still hold the bytes the catalog was made from: a fragment's
 * range means nothing in a changed note. CATALOG_STALE (exit 75) names the
 * notes that changed (or vanished).
 */
export function assertCatalogFresh(root: string, catalog: Pick<Catalog, 'catalog_id' | 'sides'>): void {
  const changed: { side: Side; path: string; expected: string; actual: string | null }[] = [];
  for (const side of ['A', 'B'] as const) {
    const { path, sha256 } = catalog.sides[side];
    let actual: string | null = null;
    try {
      actual = sha256Hex(readVaultBytes(root, path).bytes);
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
    }
    if (actual !== sha256) changed.push({ side, path, expected: sha256, actual });
  }
  if (changed.length > 0) {
    throw new VaultgateError('CATALOG_STALE', `${changed.map((c) => c.path).join(' and ')} changed since catalog ${catalog.catalog_id} was prepared`, {
      path: changed[0]!.path,
      details: { catalog_id: catalog.catalog_id, changed },
      hint: `Prepare a new catalog: \`vaultgate relate prepare ${catalog.sides.A.path} ${catalog.sides.B.path}\`.`,
    });
  }
}
