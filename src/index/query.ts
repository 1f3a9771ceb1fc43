import { isStopWord } from './stop-words.js';
import { stemWord, textWords } from './text-pipeline.js';

/**
 * The user's query language, turned into an FTS5 MATCH expression that can never
 * be a syntax error: every term is reduced to pipeline tokens and quoted, so
 * `state-of-the-art`, `c++`, `notes:`, `todo AND`, `NEAR(` are just words.
 *
 *   how do "search engines" rank -pagerank notes*
 *     → match   ("search engin" OR "rank" OR "note"*)
 *       exclude "pagerank"
 *
 * - `"…"` is a phrase (an unterminated quote runs to the end);
 * - `-term` / `-"…"` excludes every note that contains it (anywhere in the note,
 *   not only in the matching section: "notes without X" is what people mean);
 * - `term*` is a prefix;
 * - everything else is a word; the words combine with OR under BM25 (a question in
 *   plain language is a query too: requiring every word finds nothing), and English
 *   and Russian stop words are dropped unless nothing else is left.
 */

/** Upper bounds keep a pasted essay from building a huge FTS expression. */
export const MAX_QUERY_TERMS = 32;
export const MAX_EXCLUDED_TERMS = 16;

export interface QueryTerm {
  /** The text as the user wrote it (without `-`, quotes or `*`). */
  raw: string;
  /** Normalized words (no stemming): for exact-title comparison and snippets. */
  words: string[];
  /** Pipeline tokens (stemmed) as they appear in the index. */
  tokens: string[];
  phrase: boolean;
  prefix: boolean;
}

export interface ParsedQuery {
  /** FTS5 MATCH expression of the positive terms, or null when the query holds nothing searchable. */
  match: string | null;
  /** FTS5 MATCH expression of the excluded terms (OR), or null. */
  exclude: string | null;
  terms: QueryTerm[];
  excluded: QueryTerm[];
  /** The positive words joined by one space: compared with normalized titles and aliases. */
  exactKey: string;
}

interface Lexeme {
  raw: string;
  negated: boolean;
  phrase: boolean;
  prefix: boolean;
}

function lex(input: string): Lexeme[] {
  const out: Lexeme[] = [];
  let i = 0;
  const n = input.length;
  const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);
  while (i < n) {
    while (i < n && isSpace(input[i])) i++;
    if (i >= n) break;
    let negated = false;
    if (input[i] === '-' && !isSpace(input[i + 1])) {
      negated = true;
      i++;
    }
    if (input[i] === '"') {
      const close = input.indexOf('"', i + 1);
      const end = close === -1 ? n : close;
      const raw = input.slice(i + 1, end);
      i = close === -1 ? n : close + 1;
      let prefix = false;
      while (input[i] === '*') {
        prefix = true;
        i++;
      }
      out.push({ raw, negated, phrase: true, prefix });
      continue;
    }
    let j = i;
    while (j < n && !isSpace(input[j]) && input[j] !== '"') j++;
    let raw = input.slice(i, j);
    i = j;
    const prefix = /\*+$/.test(raw);
    raw = raw.replace(/\*+$/, '');
    out.push({ raw, negated, phrase: false, prefix });
  }
  return out;
}

/**
 * The token to use for a prefix: the stem when it is itself a prefix of the word
 * (`notes*` → `note*`, which also matches the indexed stem of "notes"), else the word.
 */
function prefixToken(word: string): string {
  const stem = stemWord(word);
  return word.startsWith(stem) ? stem : word;
}

function toTerm(lx: Lexeme): QueryTerm | null {
  const words = textWords(lx.raw);
  if (words.length === 0) return null;
  const tokens = words.map((w, k) => (lx.prefix && k === words.length - 1 ? prefixToken(w) : stemWord(w)));
  // A "word" like state-of-the-art yields several tokens: it is matched as the phrase it spells.
  return { raw: lx.raw, words, tokens, phrase: lx.phrase || words.length > 1, prefix: lx.prefix };
}

/** `"a b"` with inner quotes doubled: the only way a user's text enters FTS5 syntax. */
export function quoteFts(tokens: string[]): string {
  return `"${tokens.join(' ').replace(/"/g, '""')}"`;
}

export function termExpr(t: QueryTerm): string {
  return quoteFts(t.tokens) + (t.prefix ? '*' : '');
}

export function parseQuery(input: string): ParsedQuery {
  const lexemes = lex(input);
  const positive: QueryTerm[] = [];
  const excluded: QueryTerm[] = [];
  for (const lx of lexemes) {
    const term = toTerm(lx);
    if (!term) continue;
    (lx.negated ? excluded : positive).push(term);
  }
  const content = positive.filter((t) => t.phrase || t.prefix || !isStopWord(t.words[0]!));
  const kept = dedupe(content.length > 0 ? content : positive).slice(0, MAX_QUERY_TERMS);
  const minus = dedupe(excluded).slice(0, MAX_EXCLUDED_TERMS);
  const or = (terms: QueryTerm[]) => (terms.length === 0 ? null : terms.length === 1 ? termExpr(terms[0]!) : `(${terms.map(termExpr).join(' OR ')})`);
  return { match: or(kept), exclude: or(minus), terms: kept, excluded: minus, exactKey: positive.flatMap((t) => t.words).join(' ') };
}

function dedupe(terms: QueryTerm[]): QueryTerm[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = termExpr(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Normalized form of a title or alias for exact comparison with {@link ParsedQuery.exactKey}. */
export function exactKeyOf(text: string): string {
  return textWords(text).join(' ');
}
