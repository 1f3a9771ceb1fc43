import { isVaultgateError, VaultgateError } from '../errors.js';
import { loadZod, once } from '../lazy-require.js';
import { MAX_WRITES, parseStrictJson } from '../txn/index.js';
import type { ChangeRequest } from './changes.js';

/**
 * `propose --changes FILE.json`: several files at once.
 * `{"title", "summary"?, "changes": [{"path", "action": "write|delete|move", "content"?, "base": SHA256|null, "to"?}]}`
 * Strict like a bundle: the engine's JSON parser refuses duplicate keys, lone
 * surrogates and non-finite numbers; the schema refuses unknown fields.
 */
export interface ChangesDocument {
  title: string;
  summary?: string;
  /** The operation type whose scope the changes must stay in (issue 22 §3; default `generic`). */
  type?: string;
  changes: ChangeRequest[];
}

/** How a face turns a capture's `source` into an absolute path (the CLI: its working folder; MCP: the vault root). */
export type SourceResolver = (source: string) => string;

const schema = once(() => {
  const { z } = loadZod();
  const Sha = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits');
  const Change = z.strictObject({
    path: z.string().min(1),
    action: z.enum(['write', 'delete', 'move']),
    content: z.string().optional(),
    base: Sha.nullable(),
    to: z.string().min(1).optional(),
  });
  // a capture names a file to read, not a vault path: its own shape (capture.ts)
  const Capture = z.strictObject({ action: z.literal('capture'), source: z.string().min(1) });
  return z.strictObject({
    title: z.string().trim().min(1),
    summary: z.string().optional(),
    type: z.string().min(1).max(64).optional(),
    changes: z.array(z.union([Capture, Change])).min(1).max(MAX_WRITES),
  });
});

function invalid(where: string, message: string, details: Record<string, unknown> = {}): VaultgateError {
  return new VaultgateError('CHANGES_INVALID', `${where}: ${message}`, {
    details,
    hint: 'Format: {"title", "summary"?, "type"?, "changes": [{"path", "action": "write|delete|move", "content"?, "base": SHA256|null, "to"?} | {"action": "capture", "source": FILE}]} (docs/json.md, `vaultgate propose`).',
  });
}

export function parseChangesDocument(text: string, where: string, resolveSource: SourceResolver = (s) => s): ChangesDocument {
  let raw: unknown;
  try {
    raw = parseStrictJson(text);
  } catch (e) {
    if (isVaultgateError(e)) throw invalid(where, e.message.replace(/^bundle /, ''), e.details ?? {});
    throw e;
  }
  const parsed = schema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(root)';
    throw invalid(where, `${field}: ${issue.message}`, { field });
  }
  const changes = parsed.data.changes.map((c, n): ChangeRequest => {
    const at = `changes.${n}`;
    if (c.action === 'capture') return { kind: 'capture', source: resolveSource(c.source) };
    if (c.action === 'write') {
      if (c.content === undefined) throw invalid(where, `${at}: write needs content`, { field: at });
      if (c.to !== undefined) throw invalid(where, `${at}: only move takes \`to\``, { field: at });
      return { kind: 'write', path: c.path, content: c.content, base: c.base };
    }
    if (c.content !== undefined) throw invalid(where, `${at}: ${c.action} takes no content`, { field: at });
    // a move of a folder has no base (each file's hash is pinned as read); a file's must be given
    if (c.base === null && c.action !== 'move') throw invalid(where, `${at}: ${c.action} needs the base hash of the file`, { field: at });
    if (c.action === 'delete') {
      if (c.to !== undefined) throw invalid(where, `${at}: only move takes \`to\``, { field: at });
      return { kind: 'delete', path: c.path, base: c.base! };
    }
    if (c.to === undefined) throw invalid(where, `${at}: move needs \`to\``, { field: at });
    return { kind: 'move', path: c.path, to: c.to, base: c.base };
  });
  return {
    title: parsed.data.title,
    ...(parsed.data.summary === undefined ? {} : { summary: parsed.data.summary }),
    ...(parsed.data.type === undefined ? {} : { type: parsed.data.type }),
    changes,
  };
}
