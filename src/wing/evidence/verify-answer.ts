import { VaultgateError, isVaultgateError } from '../../errors.js';
import { locateQuote } from '../../markdown/quote-location.js';
import { parseStrictJson } from '../../txn/index.js';
import { noteReader, type NoteFile } from '../../vault/index.js';

/**
 * `vaultgate verify ANSWER.json`: check the citations of any agent's answer
 * against the vault as it is now — the general form of the catalog check for
 * free-form answers. A citation is either a context-packet evidence id
 * (`{"id": "e3"}`, looked up in the packet given with `--packet`) or a quote
 * (`{"path", "lines": [from, to], "quote"}`) that must occur verbatim in the
 * section(s) holding those lines of the current file.
 *
 * It checks that each quote exists where it is cited, never that it proves the
 * claim: the output says so.
 */
export type CitationStatus = 'ok' | 'not_found' | 'elsewhere_in_note' | 'file_changed' | 'unknown_id';

export interface CheckedCitation {
  status: CitationStatus;
  /** The id cited, for id citations. */
  id?: string;
  path: string | null;
  lines: [number, number] | null;
  /** Why, when not ok. */
  reason?: string;
  /** For `elsewhere_in_note`: the lines where the quote is found now. */
  found_lines?: [number, number];
}

export interface VerifyResult {
  verified: boolean;
  claims: { text: string; verified: boolean; citations: CheckedCitation[] }[];
  counts: Record<CitationStatus, number>;
  note: string;
}

export const VERIFY_NOTE = 'verify checks that every cited quote (or packet evidence) is verbatim in the cited section of the current file; it does not check that the quotes support the claims.';

export const VERIFY_LIMITS = { bytes: 16 * 1024 * 1024, claims: 1000, citations: 100 } as const;

interface PacketItem {
  id: string;
  path: string;
  lines: [number, number];
  sha256: string;
  text: string;
}

type Citation = { id: string } | { path: string; lines: [number, number]; quote: string; sha256?: string };

export function verifyAnswer(root: string, answerText: string, packetText?: string): VerifyResult {
  const claims = parseAnswer(answerText);
  const packet = packetText === undefined ? null : parsePacket(packetText);
  const read = noteReader(root);
  const counts: Record<CitationStatus, number> = { ok: 0, not_found: 0, elsewhere_in_note: 0, file_changed: 0, unknown_id: 0 };
  const out = claims.map((claim) => {
    const citations = claim.evidence.map((c) => {
      const checked = 'id' in c ? checkId(c.id, packet, read) : checkQuote(c, read);
      counts[checked.status]++;
      return checked;
    });
    return { text: claim.text, verified: citations.length > 0 && citations.every((c) => c.status === 'ok'), citations };
  });
  return { verified: out.length > 0 && out.every((c) => c.verified), claims: out, counts, note: VERIFY_NOTE };
}

function checkId(id: string, packet: Map<string, PacketItem> | null, read: (p: string) => NoteFile | VaultgateError): CheckedCitation {
  const item = packet?.get(id);
  if (!item) return { status: 'unknown_id', id, path: null, lines: null, reason: packet ? `no evidence ${JSON.stringify(id)} in the packet` : 'no --packet given to look the id up in' };
  const file = read(item.path);
  const base = { id, path: item.path, lines: item.lines };
  if (file instanceof VaultgateError) return { status: 'not_found', ...base, reason: file.message };
  if (file.sha256 === item.sha256) return { status: 'ok', ...base };
  // The file changed: the evidence still counts if its text is still where it was cited.
  const where = locateQuote(file.text, item.text, item.lines);
  if (where === 'here') return { status: 'ok', ...base, reason: 'the file changed, but the evidence text is unchanged at its lines' };
  if (where) return { status: 'elsewhere_in_note', ...base, found_lines: where, reason: 'the file changed and the evidence text moved' };
  return { status: 'file_changed', ...base, reason: 'the file changed since the packet and the evidence text is no longer in it' };
}

function checkQuote(c: { path: string; lines: [number, number]; quote: string; sha256?: string }, read: (p: string) => NoteFile | VaultgateError): CheckedCitation {
  const file = read(c.path);
  const base = { path: c.path, lines: c.lines };
  if (file instanceof VaultgateError) return { status: 'not_found', ...base, reason: file.message };
  const where = c.quote === '' ? null : locateQuote(file.text, c.quote, c.lines);
  if (where === 'here') return { status: 'ok', ...base };
  const changed = c.sha256 !== undefined && c.sha256 !== file.sha256;
  if (where) return { status: 'elsewhere_in_note', ...base, found_lines: where, reason: 'the quote is in the note, but not in the section of the cited lines' };
  if (changed) return { status: 'file_changed', ...base, reason: 'the file changed since it was cited (sha256 differs) and the quote is not in it' };
  return { status: 'not_found', ...base, reason: c.quote === '' ? 'the quote is empty' : 'the quote is not in the note' };
}

function invalid(message: string, field: string): VaultgateError {
  return new VaultgateError('INVALID_INPUT', `the answer is not a verifiable answer: ${message}`, {
    details: { field },
    hint: 'Write {"claims": [{"text": "…", "evidence": [{"id": "e1"} | {"path": "a.md", "lines": [3, 5], "quote": "…"}]}]}.',
  });
}

function parseJson(text: string, what: string): unknown {
  try {
    return parseStrictJson(text);
  } catch (e) {
    if (!isVaultgateError(e)) throw e;
    throw new VaultgateError('INVALID_INPUT', `the ${what} is not strict JSON: ${e.message.replace(/^bundle is not strict JSON: /, '')}`, { hint: `Pass the ${what} as one JSON document.` });
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseAnswer(text: string): { text: string; evidence: Citation[] }[] {
  const doc = parseJson(text, 'answer');
  if (!isObj(doc)) throw invalid('it must be a JSON object', '');
  for (const k of Object.keys(doc)) if (k !== 'claims') throw invalid(`unknown field ${JSON.stringify(k)}`, k);
  if (!Array.isArray(doc.claims)) throw invalid('`claims` must be an array', 'claims');
  if (doc.claims.length > VERIFY_LIMITS.claims) throw invalid(`over ${VERIFY_LIMITS.claims} claims`, 'claims');
  return doc.claims.map((c, i) => {
    const at = `claims[${i}]`;
    if (!isObj(c)) throw invalid(`${at} must be an object`, at);
    for (const k of Object.keys(c)) if (k !== 'text' && k !== 'evidence') throw invalid(`unknown field ${JSON.stringify(k)} in ${at}`, `${at}.${k}`);
    if (typeof c.text !== 'string') throw invalid(`${at}.text must be a string`, `${at}.text`);
    if (!Array.isArray(c.evidence)) throw invalid(`${at}.evidence must be an array`, `${at}.evidence`);
    if (c.evidence.length > VERIFY_LIMITS.citations) throw invalid(`${at} has over ${VERIFY_LIMITS.citations} citations`, `${at}.evidence`);
    return { text: c.text, evidence: c.evidence.map((e, k) => parseCitation(e, `${at}.evidence[${k}]`)) };
  });
}

function parseCitation(e: unknown, at: string): Citation {
  if (!isObj(e)) throw invalid(`${at} must be an object`, at);
  const keys = Object.keys(e);
  if ('id' in e) {
    if (keys.length !== 1) throw invalid(`${at}: an id citation has only "id"`, at);
    if (typeof e.id !== 'string') throw invalid(`${at}.id must be a string`, `${at}.id`);
    return { id: e.id };
  }
  for (const k of keys) if (!['path', 'lines', 'quote', 'sha256'].includes(k)) throw invalid(`unknown field ${JSON.stringify(k)} in ${at}`, `${at}.${k}`);
  if (typeof e.path !== 'string' || e.path === '') throw invalid(`${at}.path must be a vault path`, `${at}.path`);
  if (typeof e.quote !== 'string') throw invalid(`${at}.quote must be a string`, `${at}.quote`);
  const lines = e.lines;
  if (!Array.isArray(lines) || lines.length !== 2 || !lines.every((n) => Number.isSafeInteger(n) && (n as number) >= 1) || (lines[0] as number) > (lines[1] as number)) {
    throw invalid(`${at}.lines must be [from, to], 1-based, from ≤ to`, `${at}.lines`);
  }
  if (e.sha256 !== undefined && (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256))) throw invalid(`${at}.sha256 must be 64 hex digits`, `${at}.sha256`);
  return { path: e.path, lines: [lines[0] as number, lines[1] as number], quote: e.quote, ...(e.sha256 !== undefined ? { sha256: e.sha256 as string } : {}) };
}

/** A context packet as `vaultgate context --json` prints it (with or without the `ok` envelope). */
function parsePacket(text: string): Map<string, PacketItem> {
  const doc = parseJson(text, 'packet');
  const evidence = isObj(doc) ? doc.evidence : undefined;
  if (!Array.isArray(evidence)) {
    throw new VaultgateError('INVALID_INPUT', 'the packet has no `evidence` list', { hint: 'Pass the JSON printed by `vaultgate context --json`.' });
  }
  const out = new Map<string, PacketItem>();
  for (const e of evidence) {
    if (isObj(e) && typeof e.id === 'string' && typeof e.path === 'string' && typeof e.sha256 === 'string' && typeof e.text === 'string' && Array.isArray(e.lines)) {
      out.set(e.id, { id: e.id, path: e.path, sha256: e.sha256, text: e.text, lines: [Number(e.lines[0]), Number(e.lines[1])] });
    }
  }
  return out;
}
