/**
 * Fusion and gating, pure (no index, no store, no network): what decides how a
 * dense ranking may change a lexical one.
 *
 * Fusion is reciprocal-rank fusion (Cormack, Clarke & Büttcher 2009): an item's
 * score is Σ weight / (k + rank) over the rankings it appears in. Ranks, not
 * scores, so BM25 and cosine never need a common scale. A lexical candidate
 * whose vector is missing (its note not embedded yet, or changed since) gets
 * its lexical rank as its dense rank: a missing vector neither lifts nor sinks
 * it against its lexical neighbours.
 */

/** The usual RRF constant: a rank-1 item is not worth much more than a rank-5 one. */
export const RRF_K = 60;

export interface Fused<K> {
  key: K;
  score: number;
  /** 1-based rank in each list; null when absent (lexical: a dense-only item; dense: a missing vector). */
  lexicalRank: number | null;
  denseRank: number | null;
}

/**
 * @param lexical keys, best first (the lexical ranking)
 * @param dense keys, best first (the dense ranking: lexical candidates with a vector, then or among them dense-only keys)
 */
export function fuseRanks<K>(lexical: readonly K[], dense: readonly K[], weight: number, k = RRF_K): Fused<K>[] {
  const lex = new Map<K, number>();
  lexical.forEach((key, i) => {
    if (!lex.has(key)) lex.set(key, i + 1);
  });
  const den = new Map<K, number>();
  dense.forEach((key, i) => {
    if (!den.has(key)) den.set(key, i + 1);
  });
  const out: (Fused<K> & { order: number })[] = [];
  let order = 0;
  for (const [key, r] of lex) {
    const d = den.get(key) ?? null;
    out.push({ key, score: 1 / (k + r) + weight / (k + (d ?? r)), lexicalRank: r, denseRank: d, order: order++ });
  }
  for (const [key, d] of den) if (!lex.has(key)) out.push({ key, score: weight / (k + d), lexicalRank: null, denseRank: d, order: order++ });
  // Ties keep the lexical order, then the dense order.
  out.sort((a, b) => b.score - a.score || a.order - b.order);
  return out.map(({ order: _o, ...f }) => f);
}

/** Scripts a text's letters are written in (Unicode Script property names; `Other` for any script not listed). */
const SCRIPT_TESTS: [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Han', /\p{Script=Han}/u],
  ['Hiragana', /\p{Script=Hiragana}/u],
  ['Katakana', /\p{Script=Katakana}/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['Devanagari', /\p{Script=Devanagari}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Georgian', /\p{Script=Georgian}/u],
];

export function scriptsOf(text: string): string[] {
  const found = new Set<string>();
  for (const ch of text.match(/\p{L}/gu) ?? []) {
    const hit = SCRIPT_TESTS.find(([, re]) => re.test(ch));
    found.add(hit ? hit[0] : 'Other');
  }
  return [...found].sort();
}

/**
 * Whether a query may be fused: every script its letters use is one the config
 * trusts the model with (null = any). A query with no letters (numbers, codes)
 * passes: the lexical side decides for it anyway.
 */
export function scriptGate(text: string, allowed: readonly string[] | null): { pass: boolean; scripts: string[] } {
  const scripts = scriptsOf(text);
  return { pass: allowed === null || scripts.every((s) => allowed.includes(s)), scripts };
}

/** How many of the dense ranking's best notes are compared with the lexical candidates. */
export const AGREEMENT_DEPTH = 10;

/**
 * Agreement of a dense ranking with the lexical one: the share of the dense top
 * {@link AGREEMENT_DEPTH} notes (over every stored vector) that are also lexical
 * candidates. A model that reads a language poorly ranks notes almost at random
 * and shares next to none of them with the words' ranking; fusing it would only
 * shuffle good lexical hits. null when there is no dense ranking to compare.
 */
export function agreement(lexicalNotes: readonly string[], denseTopNotes: readonly string[]): number | null {
  const top = [...new Set(denseTopNotes)].slice(0, AGREEMENT_DEPTH);
  if (top.length === 0) return null;
  const lex = new Set(lexicalNotes);
  return top.filter((p) => lex.has(p)).length / top.length;
}
