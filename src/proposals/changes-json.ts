import { isVaultgateError } from '../errors.js';
import { parseStrictJson } from '../txn/index.js';
import { invalid, isObject, parseChangeList, resolveSources, type ChangeRequest, type SourceResolver } from './requests.js';

export type { SourceResolver } from './requests.js';

/**
 * `propose --changes FILE.json`: the document `{"title", "summary"?,
 * "changes": [...]}`, and a list sent as JSON text. Strict like a bundle: the
 * engine's JSON parser refuses duplicate keys, lone surrogates and non-finite
 * numbers; the list is the change-request language of requests.ts, whose
 * errors name the request and field (`changes[2].heading`).
 */
export interface ChangesDocument {
  title: string;
  summary?: string;
  /** The operation type whose scope the changes must stay in (issue 22 §3; default `generic`). */
  type?: string;
  changes: ChangeRequest[];
}

function parseJson(text: string, where: string | undefined): unknown {
  try {
    return parseStrictJson(text);
  } catch (e) {
    if (isVaultgateError(e)) throw invalid(where, '(document)', e.message.replace(/^bundle /, ''));
    throw e;
  }
}

/** A list sent as JSON text rather than as the list itself (some clients send every argument as text). */
export function parseChangeListText(text: string): ChangeRequest[] {
  return parseChangeList(parseJson(text, undefined));
}

/**
 * `propose --changes FILE.json`: `{"title", "summary"?, "type"?, "changes": [...]}`, strict.
 * `resolveSource`: how the face reads a capture's `source` (requests.ts).
 */
export function parseChangesDocument(text: string, where: string, resolveSource: SourceResolver = (s) => s): ChangesDocument {
  const raw = parseJson(text, where);
  if (!isObject(raw)) throw invalid(where, '(document)', 'must be an object {"title", "summary"?, "type"?, "changes": [...]}');
  for (const key of Object.keys(raw)) {
    if (!['title', 'summary', 'type', 'changes'].includes(key)) throw invalid(where, key, 'unknown field: the document takes title, summary, type, changes');
  }
  if (typeof raw.title !== 'string' || raw.title.trim() === '') throw invalid(where, 'title', 'missing: one line saying what the change is for');
  if (raw.summary !== undefined && typeof raw.summary !== 'string') throw invalid(where, 'summary', 'must be a string');
  if (raw.type !== undefined && (typeof raw.type !== 'string' || raw.type === '' || raw.type.length > 64)) throw invalid(where, 'type', 'must be an operation type name (1 to 64 characters; .vaultgate/config.yaml `operations`)');
  if (raw.changes === undefined) throw invalid(where, 'changes', 'missing: the list of change requests');
  const changes = resolveSources(parseChangeList(raw.changes, where), resolveSource);
  return {
    title: raw.title,
    ...(raw.summary === undefined ? {} : { summary: raw.summary as string }),
    ...(raw.type === undefined ? {} : { type: raw.type as string }),
    changes,
  };
}
