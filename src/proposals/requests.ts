import { VaultgateError } from '../errors.js';
import { loadZod, once } from '../lazy-require.js';

/**
 * The one change-request language of `propose` (issue #21 §1): the CLI's flags
 * build a list of these, `--changes FILE`, the MCP tool and the web API send the
 * list itself ({@link parseChangeList}). Each request becomes an exact
 * full-text change against the file as it is now. Exact or refuse: a base that
 * is not what the vault holds (75), text to replace that is not there exactly
 * once, a section that is not there exactly once, a change that changes
 * nothing — each is a typed error, and nothing is stored.
 *
 * `base` is the sha256 the caller read; `null` ("none" on the wire) for a new
 * note, or for a folder (it has no hash: each file's is pinned as read now).
 */
export type ChangeRequest =
  /** The note's whole new text; `base: null` for a new note. */
  | { action: 'write'; path: string; base: string | null; content: string }
  | { action: 'delete'; path: string; base: string }
  /** A file, or a folder and everything in it; links follow through the {@link LinkRewriter}. */
  | { action: 'move'; path: string; base: string | null; to: string }
  /** A move within the same folder: `to` is the new name (a note keeps `.md`), or a path in the same folder. */
  | { action: 'rename'; path: string; base: string | null; to: string }
  /** `replace` must occur exactly once in the note. */
  | { action: 'replace'; path: string; base: string; replace: string; with: string }
  /** Replace the body of one section (`Heading > Sub`). */
  | { action: 'section'; path: string; base: string; heading: string; content: string }
  /** To the note's end, or (with `heading`) to the end of that section. */
  | { action: 'append'; path: string; base: string; content: string; heading?: string }
  /** Rename one heading of a note (`heading`: a heading path, `A > B`); links to it follow. */
  | { action: 'rename_heading'; path: string; base: string; heading: string; to: string }
  /** A source's exact bytes, stored content-addressed under the captured folder (capture.ts): no path, no base. */
  | CaptureRequest;

/**
 * Capture (issue 22 §3): `source` names a file to read, not a vault path. The
 * face resolves it to an absolute path before propose ({@link SourceResolver}).
 */
export interface CaptureRequest {
  action: 'capture';
  source: string;
}

/** How a face turns a capture's `source` into an absolute path (the CLI: its working folder, then the vault; MCP: the vault). */
export type SourceResolver = (source: string) => string;

/** The list with every capture's source resolved by the face's resolver. */
export function resolveSources(changes: readonly ChangeRequest[], resolve: SourceResolver): ChangeRequest[] {
  return changes.map((c) => (c.action === 'capture' ? { action: 'capture', source: resolve(c.source) } : c));
}

export type ChangeAction = ChangeRequest['action'];

/** What a request's own field (beyond action, path, base) must be: every one is a string. */
export interface FieldRule {
  /** One short phrase for schemas, hints and help. */
  what: string;
  optional?: boolean;
  /** The empty string (or blanks only) is refused. */
  nonEmpty?: boolean;
}

/** One action's fields and base. */
export interface ActionSpec<R extends ChangeRequest> {
  /** The request's fields besides `action`, `path` and `base`. */
  fields: { [K in Exclude<keyof R, 'action' | 'path' | 'base'>]-?: FieldRule };
  /** `new`: a sha256 or "none" (a new note); `file-or-folder`: a file's sha256, "none" for a folder; `file`: a sha256; `none`: the request names no vault path and no base (capture). */
  base: 'file' | 'new' | 'file-or-folder' | 'none';
  /** What the request does, in a few words, when its name and fields do not say it (tool description). */
  doc?: string;
}

/**
 * The table of actions: each one's fields and what its base may be. A new kind
 * of change is one more member of {@link ChangeRequest}, one entry here, and
 * one handler in changes.ts ({@link import('./changes.js').HANDLERS}); the
 * parser, the MCP schema, hints and help read this table.
 */
export const ACTIONS: { readonly [A in ChangeAction]: ActionSpec<Extract<ChangeRequest, { action: A }>> } = {
  write: { fields: { content: { what: "the note's full new text" } }, base: 'new', doc: 'whole text' },
  delete: { fields: {}, base: 'file' },
  move: { fields: { to: { what: 'destination (ending in / : into that folder)', nonEmpty: true } }, base: 'file-or-folder', doc: 'file or folder; links follow' },
  rename: { fields: { to: { what: 'new name, same folder', nonEmpty: true } }, base: 'file-or-folder', doc: 'to: new name' },
  replace: { fields: { replace: { what: 'exact text, found once', nonEmpty: true }, with: { what: 'new text, may be empty' } }, base: 'file', doc: 'exact text, once' },
  section: { fields: { heading: { what: 'heading path "A > B"', nonEmpty: true }, content: { what: 'new body of the section' } }, base: 'file', doc: 'heading: "A > B"' },
  append: { fields: { content: { what: 'text to append', nonEmpty: true }, heading: { what: "at this section's end", optional: true, nonEmpty: true } }, base: 'file', doc: "to the note's or section's end" },
  rename_heading: { fields: { heading: { what: 'heading path "A > B"', nonEmpty: true }, to: { what: 'new heading text', nonEmpty: true } }, base: 'file' },
  capture: { fields: { source: { what: 'file to store byte for byte', nonEmpty: true } }, base: 'none', doc: 'no path or base' },
};

const SHA = /^[0-9a-f]{64}$/;
const ACTION_NAMES = Object.keys(ACTIONS) as ChangeAction[];
const fieldsOf = (a: ChangeAction) => ACTIONS[a].fields as Record<string, FieldRule>;

/** The fields of one action, as the request writes them (`heading?` when optional). */
export function actionFields(action: ChangeAction): string[] {
  return [...(ACTIONS[action].base === 'none' ? [] : ['path', 'base']), ...Object.entries(fieldsOf(action)).map(([k, f]) => (f.optional ? `${k}?` : k))];
}

/** One line per action: `replace {path, base, replace, with}`, for hints and docs. */
export function actionsSummary(): string {
  return ACTION_NAMES.map((a) => `${a} {${actionFields(a).join(', ')}}`).join('; ');
}

const FORMAT_HINT = () =>
  `Each change request is {"action", "path", "base", …}: ${actionsSummary()}. base is the sha256 you read, or "none" for a new note or a folder (docs/json.md, "propose").`;

export function invalid(where: string | undefined, field: string, message: string, request?: number): VaultgateError {
  return new VaultgateError('CHANGES_INVALID', `${where === undefined ? '' : `${where}: `}${field}: ${message}`, {
    details: { field, ...(request === undefined ? {} : { request }) },
    hint: FORMAT_HINT(),
  });
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const BASE_NEEDS: Record<ActionSpec<ChangeRequest>['base'], string> = {
  file: 'the sha256 of the note as you read it',
  new: 'the sha256 of the note as you read it, or "none" for a new note',
  'file-or-folder': 'the sha256 of the file as you read it, or "none" for a folder',
  none: '',
};

/**
 * A list of change requests, checked against the action table. `where` (a file
 * name) starts each message when the list came from a file.
 */
export function parseChangeList(raw: unknown, where?: string): ChangeRequest[] {
  if (!Array.isArray(raw)) throw invalid(where, 'changes', 'must be a list of change requests');
  if (raw.length === 0) throw invalid(where, 'changes', 'give at least one change request');
  return raw.map((item, i) => parseRequest(item, i, where));
}

function parseRequest(item: unknown, i: number, where: string | undefined): ChangeRequest {
  const at = (f?: string) => (f === undefined ? `changes[${i}]` : `changes[${i}].${f}`);
  const bad = (f: string | undefined, message: string) => invalid(where, at(f), message, i);
  if (!isObject(item)) throw bad(undefined, 'must be an object {"action", "path", "base", …}');
  const action = item.action;
  if (action === undefined) throw bad('action', `missing: one of ${ACTION_NAMES.join(', ')}`);
  if (typeof action !== 'string' || !Object.hasOwn(ACTIONS, action)) throw bad('action', `unknown action ${JSON.stringify(action)}: one of ${ACTION_NAMES.join(', ')}`);
  const spec = ACTIONS[action as ChangeAction] as ActionSpec<ChangeRequest>;
  const located = spec.base !== 'none';
  const known = new Set(['action', ...(located ? ['path', 'base'] : []), ...Object.keys(fieldsOf(action as ChangeAction))]);
  for (const key of Object.keys(item)) {
    if (!known.has(key)) throw bad(key, `unknown field: ${action} takes ${actionFields(action as ChangeAction).join(', ')}`);
  }
  const out: Record<string, unknown> = { action };
  if (located) {
    const path = item.path;
    if (path === undefined) throw bad('path', 'missing: the vault path of the note (or file, or folder)');
    if (typeof path !== 'string' || path.trim() === '') throw bad('path', 'must be a non-empty string');
    const base = item.base;
    if (base === undefined) throw bad('base', `missing: ${BASE_NEEDS[spec.base]}`);
    if (!(base === null || base === 'none' || (typeof base === 'string' && SHA.test(base)))) throw bad('base', `${JSON.stringify(base)} is not a sha256 (64 lower-case hex digits) or "none"`);
    if ((base === null || base === 'none') && spec.base === 'file') throw bad('base', `a ${action} changes an existing note: give ${BASE_NEEDS.file} ("none" is for a new note)`);
    out.path = path;
    out.base = base === 'none' ? null : base;
  }
  for (const [key, rule] of Object.entries(fieldsOf(action as ChangeAction))) {
    const v = item[key];
    if (v === undefined) {
      if (rule.optional) continue;
      throw bad(key, `missing: ${rule.what}`);
    }
    if (typeof v !== 'string') throw bad(key, `must be a string (${rule.what})`);
    if (rule.nonEmpty && v.trim() === '') throw bad(key, `must not be empty (${rule.what})`);
    out[key] = v;
  }
  return out as ChangeRequest;
}

/**
 * The list's JSON Schema for the MCP tool, from the same table, flat: one
 * object whose `action` is one of the table's and whose other fields are every
 * action's (the tool's description says which action takes which). One strict
 * object per action (`oneOf`) says more but costs 2.6 KB of `tools/list`, which
 * is in the model's context before its first call; the parser above checks each
 * request against its own action and names the field that is wrong.
 */
export const changeListZod = once(() => {
  const { z } = loadZod();
  const fields: Record<string, import('zod').ZodType> = {};
  for (const a of ACTION_NAMES) for (const k of Object.keys(fieldsOf(a))) fields[k] ??= z.string().optional();
  return z.array(z.strictObject({ action: z.enum(ACTION_NAMES as [ChangeAction, ...ChangeAction[]]), path: z.string().optional(), base: z.string().nullable().optional(), ...fields })).min(1);
});

