import { VaultgateError } from '../errors.js';
import { loadTurndown } from '../lazy-require.js';

/**
 * The text of a captured source, as ingest cites it and as the review's
 * `source` check compares quotes with (issue 22 §3). One function for both, so
 * what an agent was shown is what its quotes are checked against.
 *
 * - Markdown (`.md`, `.markdown`) and plain text (`.txt`, `.text`, no
 *   extension): the UTF-8 text, a byte-order mark and CRs dropped.
 * - HTML (`.html`, `.htm`): converted to Markdown by turndown (7.2.5, pinned;
 *   the de-facto HTML→Markdown converter, pure JavaScript, one dependency:
 *   its DOM, @mixmark-io/domino). `<head>`, `<title>`, `<script>`, `<style>`, `<noscript>` and
 *   `<template>` are dropped first: their content is not text a reader sees.
 * - Anything else (PDF included) is refused: no PDF text extractor is in the
 *   dependencies (see docs/ingest.md); capture it, and file it by hand.
 */
export type SourceKind = 'markdown' | 'text' | 'html';

const KINDS: Record<string, SourceKind> = { md: 'markdown', markdown: 'markdown', txt: 'text', text: 'text', '': 'text', html: 'html', htm: 'html' };

/** The extension of a file name, lower case, without the dot ('' when it has none). */
export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** The kind of text a source file holds, by its extension; null when vaultgate cannot read it as text. */
export function sourceKind(name: string): SourceKind | null {
  return KINDS[extensionOf(name)] ?? null;
}

/** The source's text (Markdown), or a typed error for a kind that has none. */
export function sourceText(name: string, bytes: Buffer): { kind: SourceKind; text: string } {
  const kind = sourceKind(name);
  if (kind === null) {
    throw new VaultgateError('INVALID_INPUT', `${name}: vaultgate reads Markdown, plain text and HTML sources; .${extensionOf(name)} is none of them`, {
      details: { extension: extensionOf(name) },
      hint: 'Capture it as it is (`vaultgate propose --capture FILE`) and write the note yourself; or convert it to text first and ingest that.',
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new VaultgateError('NOT_UTF8', `${name} is not valid UTF-8`, { hint: 'Save the source as UTF-8, or capture it as it is (`vaultgate propose --capture FILE`).' });
  }
  text = text.replace(/\r\n?/g, '\n');
  if (kind === 'html') text = htmlToMarkdown(text);
  return { kind, text };
}

function htmlToMarkdown(html: string): string {
  const Turndown = loadTurndown();
  const td = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  td.remove(['head', 'title', 'script', 'style', 'noscript', 'template']);
  return td.turndown(html).replace(/\r\n?/g, '\n') + '\n';
}
