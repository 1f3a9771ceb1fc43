import { type Db, isQueryStopWord, stemWord } from '../index/index.js';
import { dedupeTerms, orOf, quoteFts, termExpr, type ParsedQuery, type QueryTerm } from './query.js';
import type { CoverageTerm } from './coverage.js';
import type { Expansion } from './rank.js';

/**
 * Vocabulary bridging at query time: the question's words are the user's, the
 * notes' words are the writer's. Before ranking, each word of a plain question
 * is checked against the index's own vocabulary (`sections_vocab`, FTS5's view
 * of its terms) and:
 *
 * - a joined word that never occurs as written (`продакшен-бандла`,
 *   `хэш-тоблица`) is searched as its separate words;
 * - a word that occurs nowhere in the vault is corrected to the closest word
 *   that does (edit distance 1, 2 from 6 letters on: `колизии` → `коллизии`),
 *   or — for a Russian word — to the closest Latin word of its transliteration
 *   (`шелл` → `shell`, `питоне` → `python`): the vault's English term for it;
 * - a Russian word also searches its stem family, at a small weight (the profile's `bridge`, ranking-profile.ts), the vault's words that share all but the last letter of its stem
 *   (`приоритетами` → `приоритетной`, `запускает` → `запуск`): Snowball strips
 *   inflections, not the suffixes that turn a noun into an adjective or a verb
 *   into a noun.
 *
 * Corrections and family words are weighted expansions, and
 * count towards the note's coverage of the word with partial credit: a word
 * absent from the vault is more often a real word the writer did not use than
 * a typo. When no word of the question occurs at all, the corrections replace
 * the words (a question must not answer `total: 0` for a typo).
 */

/** The bridge's parameters; the tuned values are DEFAULT_RANKING_PROFILE.bridge (ranking-profile.ts). */
export interface BridgeParams {
  /** Weight of the correction of a word the vault does not have (spelling, transliteration), and its credit toward coverage (0: off). */
  readonly correctWeight: number;
  readonly correctCredit: number;
  /** Weight of a family word's BM25, and its credit toward coverage (0: off). */
  readonly familyWeight: number;
  readonly familyCredit: number;
  /** Family words per query word at most. */
  readonly familyTerms: number;
}

export interface BridgedQuery {
  /** The query with corrected words and split joined words (match and terms rewritten). */
  parsed: ParsedQuery;
  /** One per term of `parsed.terms`: how coverage counts it. */
  coverage: CoverageTerm[];
  expansions: Expansion[];
  /** Each correction made, `typed → used` (for the eval and for debugging). */
  corrections: string[];
}

/**
 * Vocabulary rows read for one correction at most (a range of one two-letter
 * prefix). fts5vocab walks each term's doclist to count it, so a range costs
 * in proportion to its words' occurrences: a one-letter range took 8–25 ms on
 * the 10k synthetic vault, a two-letter one ~1 ms.
 */
const MAX_VOCAB_ROWS = 20_000;

const CYRILLIC = /^[\u0400-\u04FF]+$/;
const LETTERS = /^\p{L}+$/u;

export function bridgeQuery(db: Db, parsed: ParsedQuery, p: BridgeParams): BridgedQuery {
  const corrections: string[] = [];
  if (parsed.match === null) return { parsed, coverage: [], expansions: [], corrections };
  const occurs = occurrence(db);
  // 1. Joined words that never occur joined: their words, each a term.
  let terms: QueryTerm[] = parsed.terms.flatMap((t) => {
    if (!t.joined || occurs(termExpr(t))) return [t];
    const words = t.words.map((w, k) => ({ raw: w, words: [w], tokens: [t.tokens[k]!], phrase: false, prefix: false }));
    const content = words.filter((w) => !isQueryStopWord(w.words[0]!));
    return content.length > 0 ? content : words;
  });
  // 2. Words the vault does not have: the closest word it has, searched beside the word.
  const fixes = new Map<QueryTerm, string>();
  if (p.correctWeight > 0) {
    for (const t of terms) {
      if (t.phrase || t.prefix || t.tokens.length !== 1 || occurs(termExpr(t))) continue;
      const fixed = correction(db, t.tokens[0]!);
      if (fixed === null) continue;
      corrections.push(`${t.raw} → ${fixed}`);
      fixes.set(t, fixed);
    }
    // Nothing the user typed occurs: the corrections are the query (else `total: 0` says "not in the vault").
    if (fixes.size > 0 && !terms.some((t) => occurs(termExpr(t)))) {
      terms = terms.map((t) => (fixes.has(t) ? { ...t, tokens: [fixes.get(t)!] } : t));
      fixes.clear();
    }
  }
  terms = dedupeTerms(terms);
  const own = new Set(terms.flatMap((t) => t.tokens));
  // 3. Weighted expansions: family words.
  const weights = new Map<string, number>();
  const offer = (token: string, weight: number) => {
    if (weight > 0 && !own.has(token)) weights.set(token, Math.max(weights.get(token) ?? 0, weight));
  };
  const single = terms.map((t) => (!t.phrase && !t.prefix && t.tokens.length === 1 ? t.tokens[0]! : null));
  const coverage: CoverageTerm[] = terms.map((t, k) => {
    const token = single[k];
    const alternates: { expr: string; credit: number }[] = [];
    const fixed = fixes.get(t);
    if (fixed !== undefined) {
      offer(fixed, p.correctWeight);
      alternates.push({ expr: quoteFts([fixed]), credit: p.correctCredit });
    }
    if (token) {
      if (p.familyWeight > 0 || p.familyCredit > 0) {
        for (const f of family(db, token, p.familyTerms)) {
          offer(f, p.familyWeight);
          if (p.familyCredit > 0) alternates.push({ expr: quoteFts([f]), credit: p.familyCredit });
        }
      }
    }
    return { expr: termExpr(t), alternates };
  });
  const expansions = [...weights].map(([token, weight]) => ({ match: quoteFts([token]), weight }));
  return { parsed: { ...parsed, terms, match: orOf(terms) }, coverage, expansions, corrections };
}

/** Whether an FTS expression matches any section or anchor row (each expression asked once: the steps below ask again). */
function occurrence(db: Db): (expr: string) => boolean {
  const inSections = db.prepare('SELECT 1 FROM sections_fts WHERE sections_fts MATCH ? LIMIT 1').pluck();
  const inAnchors = db.prepare('SELECT 1 FROM anchors_fts WHERE anchors_fts MATCH ? LIMIT 1').pluck();
  const known = new Map<string, boolean>();
  return (expr) => {
    let found = known.get(expr);
    if (found === undefined) known.set(expr, (found = inSections.get(expr) !== undefined || inAnchors.get(expr) !== undefined));
    return found;
  };
}

/** Terms of the index starting with `prefix`, with the number of sections holding each. */
function vocabulary(db: Db, prefix: string): [string, number][] {
  if (prefix === '') return [];
  const chars = [...prefix];
  const next = chars.slice(0, -1).join('') + String.fromCodePoint(chars[chars.length - 1]!.codePointAt(0)! + 1);
  return db.prepare('SELECT term, doc FROM sections_vocab WHERE term >= ? AND term < ? LIMIT ?').raw().all(prefix, next, MAX_VOCAB_ROWS) as [string, number][];
}

/**
 * Largest edit distance accepted for a correction of a token (a stem) of this
 * length: a question word absent from the vault is more often a real word the
 * writer did not use than a typo, and a 4-letter stem is one letter from many
 * other words.
 */
const maxDistance = (length: number) => (length >= 8 ? 2 : length >= 5 ? 1 : 0);

/**
 * The vault's closest word to a token it does not have: by edit distance among
 * the words with the same first two letters (a typo there is rare, and reading
 * every word with the same first letter costs tens of ms on a large vault), then by frequency; for a Russian token
 * also among the Latin words close to its transliteration. Null when none is
 * close enough (or the token is short: a 3-letter word is a different word one
 * letter away).
 */
export function correction(db: Db, token: string): string | null {
  if (token.length < 4 || !LETTERS.test(token)) return null;
  const best = closest(db, token);
  if (!CYRILLIC.test(token)) return best?.term ?? null;
  const latin = transliterate(token);
  const other = latin.length >= 4 ? closest(db, stemWord(latin)) ?? closest(db, latin) : null;
  if (best && (!other || best.distance <= other.distance)) return best.term;
  return other?.term ?? null;
}

function closest(db: Db, token: string): { term: string; distance: number } | null {
  const limit = maxDistance(token.length);
  let best: { term: string; distance: number; df: number } | null = null;
  for (const [term, df] of vocabulary(db, [...token].slice(0, 2).join(''))) {
    if (Math.abs(term.length - token.length) > limit) continue;
    const d = editDistance(token, term, limit);
    if (d > limit) continue;
    if (!best || d < best.distance || (d === best.distance && df > best.df)) best = { term, distance: d, df };
  }
  return best && { term: best.term, distance: best.distance };
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions),
 * or `limit + 1` as soon as it must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1);
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/** Russian letters as they are usually written in the Latin loanwords a Russian note borrows (ш → sh, ч → ch). */
const TRANSLIT: Record<string, string> = {
  а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', е: 'e', ё: 'e', ж: 'zh', з: 'z', и: 'i', й: 'y', к: 'k', л: 'l', м: 'm', н: 'n',
  о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'h', ц: 'ts', ч: 'ch', ш: 'sh', щ: 'sch', ъ: '', ы: 'y', ь: '',
  э: 'e', ю: 'yu', я: 'ya',
};

export function transliterate(cyrillic: string): string {
  let out = '';
  for (const c of cyrillic) out += TRANSLIT[c] ?? c;
  return out;
}

/**
 * A Russian token's stem family: the vault's words that share all of its
 * letters but the last (at least 6: shorter stems share their first letters with
 * unrelated words, размер/разметка), at most 3 letters longer or shorter, most
 * frequent first; the token itself left out.
 */
export function family(db: Db, token: string, max: number): string[] {
  if (max <= 0 || token.length < 7 || !CYRILLIC.test(token)) return [];
  const base = token.slice(0, token.length - 1);
  return vocabulary(db, base)
    .filter(([term]) => term !== token && Math.abs(term.length - token.length) <= 3 && CYRILLIC.test(term))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([term]) => term);
}
