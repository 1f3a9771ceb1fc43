import type { Db } from './db.js';
import { quoteFts } from './query.js';
import { isStopWord } from './stop-words.js';
import { normalizeText, lineWords, stemWord } from './text-pipeline.js';

/**
 * Pseudo-relevance feedback (RM3-style): the words that weigh most in the best
 * sections of a first pass, used to expand the question with a few related terms
 * ("how long does dough rest" → the top sections say "proofing", "rise").
 *
 * A term's weight is Σ over the feedback sections of its share of the section's
 * words times the section's share of the feedback score. Stop words, the
 * question's own tokens, numbers and tokens under 3 characters are left out.
 */

export interface ExpansionTerm {
  token: string;
  weight: number;
}

/** Characters of a feedback section read (the start of a long section says what it is about). */
const MAX_FEEDBACK_CHARS = 6000;

export function feedbackTerms(db: Db, sections: { id: number; score: number }[], exclude: Set<string>, count: number): ExpansionTerm[] {
  if (sections.length === 0 || count <= 0) return [];
  const text = db.prepare('SELECT text FROM sections WHERE id = ?').pluck();
  const total = sections.reduce((a, s) => a + Math.max(0, s.score), 0) || 1;
  const weights = new Map<string, number>();
  for (const s of sections) {
    const body = ((text.get(s.id) as string | undefined) ?? '').slice(0, MAX_FEEDBACK_CHARS);
    const words = lineWords(normalizeText(body));
    if (words.length === 0) continue;
    const tf = new Map<string, number>();
    for (const w of words) {
      if (w.length < 3 || isStopWord(w) || /^\d+$/.test(w)) continue;
      const t = stemWord(w);
      if (exclude.has(t)) continue;
      tf.set(t, (tf.get(t) ?? 0) + 1);
    }
    const docWeight = Math.max(0, s.score) / total;
    for (const [t, n] of tf) weights.set(t, (weights.get(t) ?? 0) + (n / words.length) * docWeight);
  }
  return [...weights]
    .map(([token, weight]) => ({ token, weight }))
    .sort((a, b) => b.weight - a.weight || (a.token < b.token ? -1 : 1))
    .slice(0, count);
}

/** An OR of the terms, quoted: the MATCH expression of an expansion. */
export function expansionMatch(terms: ExpansionTerm[]): string | null {
  if (terms.length === 0) return null;
  const quoted = terms.map((t) => quoteFts([t.token]));
  return quoted.length === 1 ? quoted[0]! : `(${quoted.join(' OR ')})`;
}
