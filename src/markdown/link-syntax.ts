/**
 * parseLinkSyntax: a link as a person or agent types it on the command line
 * (`vaultgate resolve LINK`), read with the same rules as links inside notes.
 *
 * Accepted: `[[A#B|c]]`, `![[x.png|100]]`, `[t](a%20b.md)`, `![alt](x.png)`,
 * `[[x\|y]]`, and a bare target (`A#B`, `Folder/Note`, `#Heading`) read as the
 * inside of a wikilink.
 */
import { VaultgateError } from '../errors.js';
import { parseMarkdownDestination, parseWikilinkInner } from './link-parts.js';
import type { LinkSyntax } from './types.js';

const MARKDOWN = /^(!?)\[([^\]]*)\]\(\s*(<[^>]*>|[^\s()]*)(?:\s+"[^"]*")?\s*\)$/;

const EXAMPLES = 'Write it as in a note: [[Note]], [[Note#Heading|text]], ![[image.png]], [text](Note.md), or a bare Note#Heading.';

function invalid(raw: string, why: string): VaultgateError {
  return new VaultgateError('LINK_INVALID', `Cannot read link ${JSON.stringify(raw)}: ${why}`, {
    hint: EXAMPLES,
    details: { link: raw },
  });
}

function empty(raw: string): VaultgateError {
  return new VaultgateError('LINK_EMPTY', 'The link is empty', { hint: EXAMPLES, details: { link: raw } });
}

export function parseLinkSyntax(raw: string): LinkSyntax {
  const s = raw.trim();
  if (s === '') throw empty(raw);

  if (s.startsWith('[[') || s.startsWith('![[')) {
    const embed = s.startsWith('!');
    if (!s.endsWith(']]') || s.length < (embed ? 5 : 4)) throw invalid(raw, 'the wikilink is not closed with ]]');
    const inner = s.slice(embed ? 3 : 2, -2);
    if (inner.includes('[[') || inner.includes(']]') || inner.includes('\n')) throw invalid(raw, 'more than one wikilink');
    if (inner.trim() === '') throw empty(raw);
    return { kind: embed ? 'embed' : 'wikilink', ...parseWikilinkInner(inner, embed) };
  }

  if (s.startsWith('[') || s.startsWith('![')) {
    const m = MARKDOWN.exec(s);
    if (!m) throw invalid(raw, 'expected [text](target)');
    const dest = m[3] ?? '';
    const target = parseMarkdownDestination(dest);
    if (!target) {
      if (dest.trim() === '' || dest === '<>') throw empty(raw);
      throw invalid(raw, 'an external URL is not a vault link');
    }
    const label = m[2] ?? '';
    if (m[1] === '!') {
      const bar = label.lastIndexOf('|');
      const tail = label.slice(bar + 1).trim();
      const size = /^\d+(?:x\d+)?$/.test(tail) ? tail : null;
      const display = size === null ? label || null : bar === -1 ? null : label.slice(0, bar);
      return { kind: 'embed', ...target, display, size };
    }
    return { kind: 'markdown', ...target, display: label === '' ? null : label, size: null };
  }

  if (s.includes('[[') || s.includes(']]') || s.includes('\n')) throw invalid(raw, 'unbalanced [[ or ]]');
  return { kind: 'wikilink', ...parseWikilinkInner(s, false) };
}
