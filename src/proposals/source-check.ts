import { isVaultgateError } from '../errors.js';
import { checkDraft, prepareSource } from '../markdown/verbatim.js';
import { sourceKind, sourceText } from '../markdown/source-text.js';
import type { ReviewCheck } from '../policy/index.js';
import { isMarkdownPath, sha256Hex } from '../vault/index.js';
import { isVaultSource, readRecordedSource } from './capture.js';
import type { StoredChange } from './types.js';

/**
 * The review's `source` check (issue 22 §3), for proposals that carry a capture:
 *
 * 1. The source is pinned: the file a capture was read from must still hold
 *    the captured bytes (its SHA-256 is the captured file's name). Changed or
 *    gone, the check blocks and apply refuses with STALE_HASH (75). A source
 *    inside the vault is also the engine's read precondition, so a change in
 *    the moment between review and write is caught under the vault lock.
 * 2. Quotes are verbatim: when the proposal also creates notes, every sentence
 *    a new note *quotes* — the text of its blockquote lines (`> …`; a callout's
 *    first line `> [!type] Title` is its title, not a quote) — must occur word
 *    for word in the source's text (markdown/source-text.ts: HTML as converted
 *    to Markdown), compared by markdown/verbatim.ts (links as their display
 *    text, emphasis and whitespace folded). Anything else the note says is the
 *    agent's own words, and is the person's to judge.
 */

const CALLOUT_HEAD = /^\s*(?:>\s*)+\[![^\]]*\]/;
const QUOTE_LINE = /^\s*>/;

/** Vault sources of captures, pinned to the captured bytes' hash (not when the proposal itself writes the source). */
export function sourcePins(changes: readonly StoredChange[]): Record<string, string> {
  const written = new Set(changes.flatMap((c) => (c.to === null ? [c.path] : [c.path, c.to])));
  const pins: Record<string, string> = {};
  for (const c of changes) {
    if (c.capture && isVaultSource(c.capture.source) && !written.has(c.capture.source)) pins[c.capture.source] = c.new_sha256!;
  }
  return pins;
}

export function sourceChecks(root: string, changes: readonly StoredChange[]): ReviewCheck[] {
  const captures = changes.filter((c) => c.capture);
  if (captures.length === 0) return [];
  const out: ReviewCheck[] = [];
  for (const c of captures) {
    const { source } = c.capture!;
    let actual: string | null;
    try {
      actual = sha256Hex(readRecordedSource(root, source));
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
      actual = null;
    }
    if (actual === c.new_sha256) continue;
    out.push({
      name: 'source',
      ok: false,
      severity: 'block',
      path: source,
      message: `${source} changed since it was captured as ${c.path}: captured ${c.new_sha256}, ${actual === null ? 'but it can no longer be read' : `now ${actual}`}`,
      details: { code: 'STALE_HASH', expected: c.new_sha256, actual, captured: c.path },
    });
  }
  // the quotes of the new notes, against the captured texts (the bytes the proposal carries)
  const notes = changes.filter((c) => !c.capture && c.action === 'write' && c.base_sha256 === null && c.new_text !== null && isMarkdownPath(c.path));
  if (notes.length > 0) {
    const texts: string[] = [];
    for (const c of captures) {
      if (sourceKind(c.capture!.source) === null) continue;
      try {
        texts.push(sourceText(c.capture!.source, c.capture!.bytes).text);
      } catch (e) {
        if (!isVaultgateError(e)) throw e;
      }
    }
    if (texts.length === 0) {
      out.push({ name: 'source', ok: false, severity: 'warn', message: 'quotes not checked: no captured source has text vaultgate can read (Markdown, plain text, HTML)' });
    } else {
      const source = prepareSource(texts.join('\n\n'));
      for (const n of notes) {
        const draft = quotesOnly(n.new_text!);
        const report = checkDraft(source, draft);
        for (const s of report.novel) {
          out.push({
            name: 'source',
            ok: false,
            severity: 'block',
            path: n.path,
            message: `${n.path}:${s.line}: the quote "${s.text.length > 160 ? s.text.slice(0, 157) + '…' : s.text}" is not word for word in the captured source`,
            details: { line: s.line, text: s.text },
          });
        }
      }
    }
  }
  if (out.length === 0) out.push({ name: 'source', ok: true, severity: 'block', message: 'every captured source still holds its bytes, and every quote in the new notes is word for word in it' });
  return out;
}

/** The note with every line that is not a quote blanked (line numbers kept). */
export function quotesOnly(text: string): string {
  return text
    .replace(/^\ufeff/, '')
    .split(/\r?\n/)
    .map((line) => (QUOTE_LINE.test(line) && !CALLOUT_HEAD.test(line) ? line : ''))
    .join('\n');
}
