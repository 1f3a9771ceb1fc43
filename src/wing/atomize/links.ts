import { buildFileIndex, linkTextFor, resolveLinkPath, type FileIndex, type LinkFormat } from '../../links/index.js';
import { parseNote } from '../../markdown/index.js';
import { isOwnLine } from '../../markdown/own-lines.js';

/**
 * Links put back after the model: in a draft, the first plain mention of
 * another entity's name or alias becomes a link to that entity's note, written
 * so that it resolves — by vaultgate's own resolver, from the note's final
 * path — to exactly that note (links/link-text.ts checks each one). The shown
 * text stays the words of the sentence, so the verbatim check reads the same
 * sentence. Idempotent: a target the note already links to is not linked again.
 */
export interface LinkTarget {
  /** Final vault path of the entity's note. */
  path: string;
  /** Name and aliases, as mentioned in text. */
  terms: string[];
}

/** The vault's files plus the notes about to be proposed: what links are resolved against. */
export function planIndex(vaultFiles: readonly string[], planned: readonly string[]): FileIndex {
  return buildFileIndex([...vaultFiles, ...planned].map((p) => ({ path: p, indexed: true })));
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Spans a link must not be put into: links, inline code, URLs. */
const SKIP = /!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)|`[^`\n]*`|https?:\/\/\S+/g;

/** Lines of a draft a link may go into: claim lines after the frontmatter (no heading, fence, table rule or own line). */
function eligibleLines(lines: readonly string[]): boolean[] {
  const out = new Array<boolean>(lines.length).fill(false);
  let i = 0;
  if (lines[0]?.trim() === '---') {
    for (i = 1; i < lines.length && lines[i]!.trim() !== '---'; i++);
    i++;
  }
  let fence = false;
  for (; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (/^(```|~~~)/.test(t)) {
      fence = !fence;
      continue;
    }
    if (fence || t === '' || /^#{1,6}(\s|$)/.test(t) || /^\|?[\s:|-]+\|[\s:|-]*$/.test(t) || isOwnLine(lines[i]!)) continue;
    out[i] = true;
  }
  return out;
}

export function addLinks(text: string, from: string, targets: readonly LinkTarget[], index: FileIndex, format: LinkFormat): { text: string; added: number } {
  const lines = text.split('\n');
  const ok = eligibleLines(lines);
  const linked = new Set<string>();
  for (const l of parseNote(text).links) {
    if (l.path === null || l.path === undefined) continue;
    const r = resolveLinkPath(index, l.path, from);
    if (r.status === 'resolved' && r.target) linked.add(r.target);
  }
  const busy: Array<Array<[number, number]>> = lines.map((line) => [...line.matchAll(SKIP)].map((m) => [m.index!, m.index! + m[0].length] as [number, number]));
  const inserts: Array<{ line: number; start: number; end: number; link: string }> = [];
  const ordered = [...targets].filter((t) => t.path !== from && !linked.has(t.path)).sort((a, b) => Math.max(...b.terms.map((x) => x.length)) - Math.max(...a.terms.map((x) => x.length)));
  for (const t of ordered) {
    const terms = [...new Set(t.terms.filter((x) => x.trim().length > 1))].sort((a, b) => b.length - a.length);
    if (terms.length === 0) continue;
    const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${terms.map(escapeRe).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
    let found: { line: number; start: number; end: number; text: string } | null = null;
    for (let i = 0; i < lines.length && !found; i++) {
      if (!ok[i]) continue;
      for (const m of lines[i]!.matchAll(re)) {
        const s = m.index!;
        const e = s + m[0].length;
        if (busy[i]!.some(([a, b]) => s < b && e > a)) continue;
        found = { line: i, start: s, end: e, text: m[0] };
        break;
      }
    }
    if (!found) continue;
    let link: string;
    try {
      const plain = linkTextFor(index, t.path, from, format);
      link = !format.useMarkdownLinks && plain.path === found.text ? plain.text : linkTextFor(index, t.path, from, format, found.text).text;
    } catch {
      continue; // no link text names exactly that note from here: leave the words as they are
    }
    busy[found.line]!.push([found.start, found.end]);
    inserts.push({ line: found.line, start: found.start, end: found.end, link });
  }
  inserts.sort((a, b) => a.line - b.line || b.start - a.start);
  for (const ins of inserts) {
    const l = lines[ins.line]!;
    lines[ins.line] = l.slice(0, ins.start) + ins.link + l.slice(ins.end);
  }
  return { text: lines.join('\n'), added: inserts.length };
}
