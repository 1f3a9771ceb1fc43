/**
 * Frontmatter: the YAML block Obsidian reads as properties. It exists only when
 * the note's first line is `---` and a later line is `---` (an unclosed block is
 * ordinary Markdown: a rule and text). The YAML is parsed with the 1.2 core schema
 * (dates stay strings), duplicate keys are errors, and a broken block is reported,
 * never thrown: a note with broken frontmatter is still a note.
 *
 * Links, tags and aliases are read from the YAML syntax tree, not from the JS
 * value, because their ranges must point into the note text. When the YAML has a
 * syntax error none are reported: Obsidian shows no properties for such a note.
 */
import type { Document, Node as YamlNode } from 'yaml';
import { loadYaml as yaml } from '../lazy-require.js';
import { columnOf, lineOf, linesOf } from './lines.js';
import { parseWikilinkInner, scanWikilinks } from './link-parts.js';
import { readSimpleFrontmatter, simpleData, type SimpleScalar } from './simple-frontmatter.js';
import type { Frontmatter, Link, Range, Tag } from './types.js';

export interface FrontmatterBlock {
  /** Both fences included; ends before the closing fence's line break. */
  range: Range;
  contentRange: Range;
  /** Where the Markdown body starts: after the closing fence's line break. */
  bodyStart: number;
}

const FENCE = /^---[ \t]*\r?$/;

function isFenceLine(text: string, from: number, to: number): boolean {
  return text.startsWith('---', from) && to - from <= 64 && FENCE.test(text.slice(from, to));
}

/** Locate the frontmatter block, or null. Linear in the lines it looks at. */
export function findFrontmatter(text: string): FrontmatterBlock | null {
  const firstNl = text.indexOf('\n');
  if (firstNl === -1 || !isFenceLine(text, 0, firstNl)) return null;
  let pos = firstNl + 1;
  for (;;) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl === -1 ? text.length : nl;
    if (isFenceLine(text, pos, lineEnd)) {
      const end = text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
      return {
        range: { start: 0, end },
        contentRange: { start: firstNl + 1, end: pos },
        bodyStart: nl === -1 ? text.length : nl + 1,
      };
    }
    if (nl === -1) return null;
    pos = nl + 1;
  }
}

export interface FrontmatterFacts {
  frontmatter: Frontmatter;
  links: Link[];
  tags: Tag[];
  aliases: string[];
}

interface Ctx {
  text: string;
  lineStarts: number[];
  /** Offset of the YAML text in the note: YAML node ranges are relative to it. */
  base: number;
}

function keyName(key: unknown): string | null {
  return yaml().isScalar(key) && key.value !== null && key.value !== undefined ? String(key.value) : null;
}

/** Every string scalar under `node`, with its source range. */
function stringScalars(node: unknown, out: SimpleScalar[] = []): SimpleScalar[] {
  if (yaml().isScalar(node)) {
    if (typeof node.value === 'string' && node.range) out.push({ value: node.value, range: [node.range[0], node.range[1]] });
  } else if (yaml().isMap(node)) {
    for (const pair of node.items) stringScalars(pair.value, out);
  } else if (yaml().isSeq(node)) {
    for (const item of node.items) stringScalars(item, out);
  }
  return out;
}

/**
 * Wikilinks written inside string values (`up: "[[Parent]]"`, `- "[[Books]]"`).
 * The source slice is scanned, so the range is the `[[…]]` in the note. An
 * unquoted `up: [[Parent]]` is a nested YAML list, not a string: not a link
 * (Obsidian does not read it as one either).
 */
function frontmatterLinks(ctx: Ctx, property: string, scalars: SimpleScalar[], links: Link[]): void {
  for (const s of scalars) {
    const from = ctx.base + s.range[0];
    const to = ctx.base + s.range[1];
    for (const hit of scanWikilinks(ctx.text, from, to)) {
      const range = { start: hit.start, end: hit.end };
      links.push({
        kind: 'frontmatter',
        raw: ctx.text.slice(hit.start, hit.end),
        range,
        ...parseWikilinkInner(hit.inner, hit.embed),
        inComment: false,
        property,
        ...linesOf(ctx.lineStarts, range),
      });
    }
  }
}

const DIGITS = /^[0-9]+$/;

/** `tags: a, b` / `tags: [a, "#b"]` / list items: each token is a tag, `#` optional. */
function frontmatterTags(ctx: Ctx, scalars: SimpleScalar[], tags: Tag[]): void {
  for (const s of scalars) {
    const from = ctx.base + s.range[0];
    const source = ctx.text.slice(from, ctx.base + s.range[1]);
    let cursor = 0;
    for (const token of s.value.split(/[,\s]+/)) {
      const name = token.replace(/^#/, '');
      if (name === '' || DIGITS.test(name)) continue;
      const at = source.indexOf(token, cursor);
      // An escaped quoted scalar may not contain the token verbatim: fall back to the whole value.
      const range = at === -1 ? { start: from, end: ctx.base + s.range[1] } : { start: from + at, end: from + at + token.length };
      if (at !== -1) cursor = at + token.length;
      tags.push({ name, source: 'frontmatter', range, ...linesOf(ctx.lineStarts, range) });
    }
  }
}

function frontmatterAliases(scalars: SimpleScalar[], aliases: string[]): void {
  for (const s of scalars) {
    const a = s.value.trim();
    if (a !== '') aliases.push(a);
  }
}

function errorAt(ctx: Ctx, code: string, message: string, yamlOffset: number): NonNullable<Frontmatter['error']> {
  const at = ctx.base + Math.max(0, Math.min(yamlOffset, ctx.text.length - ctx.base));
  return { code, message, line: lineOf(ctx.lineStarts, at), column: columnOf(ctx.lineStarts, at) };
}

function yamlErrorOf(doc: Document.Parsed, ctx: Ctx): Frontmatter['error'] {
  const e = doc.errors[0];
  return e ? errorAt(ctx, e.code, e.message, e.pos[0]) : null;
}

/**
 * Key problems the YAML syntax allows but properties cannot hold, found in one
 * linear pass. `DUPLICATE_KEY` is checked here rather than by the `yaml` option
 * `uniqueKeys`, which compares every key with every other (50k keys: 42 s).
 * `NON_SCALAR_KEY` (our code) is a collection used as a key: what an unapplied
 * template placeholder such as `created: {{date}}` parses to.
 */
function keyErrorOf(doc: Document.Parsed, ctx: Ctx): Frontmatter['error'] {
  let found: Frontmatter['error'] = null;
  yaml().visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = pair.key;
        const at = (key as { range?: [number, number] } | null)?.range?.[0] ?? 0;
        if (yaml().isCollection(key)) {
          found = errorAt(ctx, 'NON_SCALAR_KEY', 'A mapping or list used as a key (an unapplied template placeholder?)', at);
          return yaml().visit.BREAK;
        }
        const name = yaml().isScalar(key) ? String(key.value) : String(key);
        if (seen.has(name)) {
          found = errorAt(ctx, 'DUPLICATE_KEY', `Map keys must be unique: ${JSON.stringify(name)} repeats`, at);
          return yaml().visit.BREAK;
        }
        seen.add(name);
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Largest YAML block we parse (UTF-16 units). The `yaml` library reads about
 * 0.4 MB/s, so a 60 MB block would stall a read for minutes (DESIGN §1.8:
 * bounded everything); real frontmatter is a few hundred bytes.
 */
export const MAX_FRONTMATTER_LENGTH = 1024 * 1024;

/**
 * Parse a located block into the model's frontmatter plus the links, tags and
 * aliases it holds. A block of the simple form most notes use is read without
 * `yaml` (simple-frontmatter.ts; `yamlOnly` turns that off, for the test that
 * compares the two).
 */
export function readFrontmatter(text: string, block: FrontmatterBlock, lineStarts: number[], opts: { yamlOnly?: boolean } = {}): FrontmatterFacts {
  const ctx: Ctx = { text, lineStarts, base: block.contentRange.start };
  const size = block.contentRange.end - block.contentRange.start;
  if (size > MAX_FRONTMATTER_LENGTH) {
    const error = errorAt(ctx, 'FRONTMATTER_TOO_LARGE', `Frontmatter of ${size} characters is over the ${MAX_FRONTMATTER_LENGTH} limit; not parsed`, 0);
    const frontmatter = { range: block.range, contentRange: block.contentRange, data: null, error, ...linesOf(lineStarts, block.range) };
    return { frontmatter, links: [], tags: [], aliases: [] };
  }
  const yamlText = text.slice(block.contentRange.start, block.contentRange.end);
  const simple = opts.yamlOnly ? null : readSimpleFrontmatter(yamlText);
  if (simple) {
    const facts = emptyFacts(block, lineStarts, simpleData(simple));
    for (const { key, value } of simple) propertyFacts(ctx, key, Array.isArray(value) ? value : [value], facts);
    return facts;
  }
  // logLevel 'silent': the library would otherwise print warnings to stderr.
  const doc = yaml().parseDocument(yamlText, { version: '1.2', schema: 'core', uniqueKeys: false, prettyErrors: false, logLevel: 'silent' });
  const syntaxError = yamlErrorOf(doc, ctx);
  let error = syntaxError ?? keyErrorOf(doc, ctx);
  let data: unknown = null;
  if (error === null) {
    try {
      data = doc.toJS({ maxAliasCount: 100 }) ?? null;
    } catch (e) {
      // e.g. an alias bomb ("Excessive alias count"): reported like a syntax error.
      const at = ctx.base;
      error = {
        code: (e as { code?: string }).code ?? 'YAML_ERROR',
        message: (e as Error).message,
        line: lineOf(lineStarts, at),
        column: 1,
      };
    }
  }
  const facts = emptyFacts(block, lineStarts, data, error);
  // Key problems (duplicates, placeholders) leave the other properties readable,
  // so their links still count; a syntax error leaves nothing trustworthy.
  if (syntaxError === null && yaml().isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      const key = keyName(pair.key);
      if (key !== null) propertyFacts(ctx, key, stringScalars(pair.value as YamlNode | null), facts);
    }
  }
  return facts;
}

function emptyFacts(block: FrontmatterBlock, lineStarts: number[], data: unknown, error: Frontmatter['error'] = null): FrontmatterFacts {
  const frontmatter = { range: block.range, contentRange: block.contentRange, data, error, ...linesOf(lineStarts, block.range) };
  return { frontmatter, links: [], tags: [], aliases: [] };
}

/** The links, tags and aliases one property's string values hold. */
function propertyFacts(ctx: Ctx, key: string, scalars: SimpleScalar[], facts: FrontmatterFacts): void {
  frontmatterLinks(ctx, key, scalars, facts.links);
  const lower = key.toLowerCase();
  if (lower === 'tags' || lower === 'tag') frontmatterTags(ctx, scalars, facts.tags);
  if (lower === 'aliases' || lower === 'alias') frontmatterAliases(scalars, facts.aliases);
}
