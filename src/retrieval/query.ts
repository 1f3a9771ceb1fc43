import { VaultgateError } from '../errors.js';
import { cjkBigrams, cjkRuns, hasCjk, isQueryStopWord, lineWords, normalizeText, stemWord, textWords } from '../index/index.js';

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
 *   plain language is a query too: requiring every word finds nothing), and stop
 *   words (stop-words.ts) are dropped unless nothing else is left.
 *
 * What is one word: letters and digits joined by `-`, `'`, `.`, `_`, `/`, `@`, `&`
 * or `+` stay together and match as the phrase they spell (`state-of-the-art`,
 * `node.js`); any other punctuation separates words (`title:robber` is `title`
 * OR `robber`). Chinese and Japanese are written without spaces, so a run of CJK
 * text is cut into words by Intl.Segmenter, as the index cuts notes, and each
 * word is a term of its own (面包要发酵多久 → 面包 OR 发酵; 要 and 多久 are stop
 * words). In a quoted phrase the words must still be adjacent.
 *
 * When the words find nothing, {@link ParsedQuery.bigrams} is the fallback: the
 * character bigrams of the question's CJK text, matched against the bigram index
 * of every section, so a question never finds nothing merely because the
 * segmenter cut its words differently from the note's.
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
  /** A phrase only because its words were written joined (`продакшен-бандла`, `node.js`), not quoted. */
  joined?: boolean;
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
  /** FTS5 MATCH expression (OR) of the character bigrams of the positive terms' CJK text, or null when they have none. */
  bigrams: string | null;
  /** The bigrams of {@link bigrams}, one MATCH expression each. */
  bigramTerms: string[];
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

/** Anything but letters, digits, marks and the joiners of one written word separates words. */
const SEPARATORS = /[^\p{L}\p{N}\p{M}\-'’._/@&+]+/u;

function termOf(raw: string, words: string[], phrase: boolean, prefix: boolean): QueryTerm {
  const tokens = words.map((w, k) => (prefix && k === words.length - 1 ? prefixToken(w) : stemWord(w)));
  return { raw, words, tokens, phrase, prefix };
}

/**
 * The terms of one lexeme. A quoted or excluded one is one term (a phrase when it
 * has several words); a plain one is split at separators, each piece being a word,
 * a joined phrase (`state-of-the-art`), or — when it holds CJK text — one term per
 * segmented word.
 */
function toTerms(lx: Lexeme): QueryTerm[] {
  if (lx.phrase || lx.negated) {
    const words = textWords(lx.raw);
    return words.length === 0 ? [] : [termOf(lx.raw, words, lx.phrase || words.length > 1, lx.prefix)];
  }
  const pieces = lx.raw.split(SEPARATORS).filter((p) => p !== '');
  const out: QueryTerm[] = [];
  pieces.forEach((piece, k) => {
    const words = textWords(piece);
    if (words.length === 0) return;
    const prefix = lx.prefix && k === pieces.length - 1;
    if (words.length > 1 && hasCjk(normalizeText(piece))) {
      words.forEach((w, j) => out.push(termOf(w, [w], false, prefix && j === words.length - 1)));
    } else if (words.length > 1) out.push({ ...termOf(piece, words, true, prefix), joined: true });
    else out.push(termOf(piece, words, false, prefix));
  });
  return out;
}

/** `"a b"` with inner quotes doubled: the only way a user's text enters FTS5 syntax. */
export function quoteFts(tokens: string[]): string {
  return `"${tokens.join(' ').replace(/"/g, '""')}"`;
}

export function termExpr(t: QueryTerm): string {
  return quoteFts(t.tokens) + (t.prefix ? '*' : '');
}

/** Most bigrams in a fallback query (a pasted page of Chinese must not build a huge expression). */
export const MAX_QUERY_BIGRAMS = 64;

export function parseQuery(input: string): ParsedQuery {
  const lexemes = lex(input);
  const positive: QueryTerm[] = [];
  const excluded: QueryTerm[] = [];
  const cjkText: string[] = [];
  for (const lx of lexemes) {
    const terms = toTerms(lx);
    (lx.negated ? excluded : positive).push(...terms);
    if (!lx.negated) cjkText.push(...contentRuns(lx.raw));
  }
  // A question of stop words only is searched for them, bigrams included.
  if (cjkText.length === 0) {
    for (const lx of lexemes) if (!lx.negated) cjkText.push(...contentRuns(lx.raw, true));
  }
  const content = positive.filter((t) => t.phrase || t.prefix || !isQueryStopWord(t.words[0]!));
  const kept = dedupeTerms(content.length > 0 ? content : positive).slice(0, MAX_QUERY_TERMS);
  const minus = dedupeTerms(excluded).slice(0, MAX_EXCLUDED_TERMS);
  return {
    match: orOf(kept),
    exclude: orOf(minus),
    terms: kept,
    excluded: minus,
    exactKey: positive.flatMap((t) => t.words).join(' '),
    ...bigramExpr(cjkText),
  };
}

/** The FTS5 OR of the terms (null for none): a query's MATCH expression. */
export function orOf(terms: readonly QueryTerm[]): string | null {
  return terms.length === 0 ? null : terms.length === 1 ? termExpr(terms[0]!) : `(${terms.map(termExpr).join(' OR ')})`;
}

/**
 * Runs of adjacent CJK content words, joined back (面包面团要发酵 → 面包面团, 发酵):
 * stop words, punctuation and other scripts break a run, so 要发 and 酵多 are
 * never searched.
 */
function contentRuns(raw: string, keepStopWords = false): string[] {
  const runs: string[] = [];
  for (const text of cjkRuns(normalizeText(raw))) {
    let run = '';
    for (const w of lineWords(text)) {
      if (keepStopWords || !isQueryStopWord(w)) run += w;
      else if (run) {
        runs.push(run);
        run = '';
      }
    }
    if (run) runs.push(run);
  }
  return runs;
}

/** `("面包" OR "包面" OR …)`; a lone character is a prefix, so it also finds the bigrams it starts. */
function bigramExpr(texts: string[]): { bigrams: string | null; bigramTerms: string[] } {
  const grams = [...new Set(texts.flatMap((t) => cjkBigrams(t, [], false)))].slice(0, MAX_QUERY_BIGRAMS);
  const terms = grams.map((g) => quoteFts([g]) + (g.length === 1 ? '*' : ''));
  return { bigrams: terms.length === 0 ? null : terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`, bigramTerms: terms };
}

/**
 * An empty or blank query is a usage error in every face (CLI, MCP, web), as an
 * empty question is for `context`: "no hits" would tell an agent the vault has
 * nothing, when nothing was asked.
 */
export function assertQuery(query: string, what = 'query'): void {
  if (query.trim() === '') {
    throw new VaultgateError('USAGE', `the ${what} is empty`, { hint: 'Search for some words, e.g. `vaultgate search "deploy checklist"`.' });
  }
}

/** The terms without repeats (two terms are the same when their FTS expressions are). */
export function dedupeTerms(terms: QueryTerm[]): QueryTerm[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = termExpr(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
