import crypto from 'node:crypto';

/**
 * The key a note's text is memoised under (its parse, shared by review's checks
 * and the link rewriter). Never the long text itself: V8 hashes a string of more
 * than 16,383 characters by its length alone, so a Map keyed by many long texts
 * of one length (notes made from one template, a change that keeps the length)
 * compares them whole against each other — quadratic: 2,000 such 200 KB keys
 * took over 5 minutes to insert and look up (issue 20 §8). A long text is keyed
 * by its SHA-256 instead; the prefixes keep the two kinds of key apart.
 */
const LONG = 16_000;

export function textKey(text: string): string {
  return text.length <= LONG ? `t${text}` : `h${text.length}:${crypto.createHash('sha256').update(text).digest('base64')}`;
}

/** Whether a key names its text by hash (a long text), not by the text itself. */
export function isHashKey(key: string): boolean {
  return key.startsWith('h');
}

/** Texts of one length remembered by identity; past this, a key is hashed again (many same-length texts sharing a long prefix would make `===` slow). */
const SAME_LENGTH = 8;

/**
 * Get-or-make over a memo keyed by `textKey`, remembering each text's key by
 * the text itself: a review asks for the same notes' parses from several
 * checks, and hashing a long text again each time cost more than the parse of
 * a short one (issue 20 §8: 60 texts of 200 KB were hashed over 300 times).
 * The same string is found by `===` among the remembered texts of its length
 * (a pointer compare for the same string, a length-and-prefix compare for
 * another); never as a Map key (see above).
 */
export function textMemo<T>(memo: Map<string, T>, make: (text: string) => T): (text: string) => T {
  const known = new Map<number, Array<[string, string]>>();
  const keyOf = (text: string): string => {
    if (text.length <= LONG) return textKey(text);
    let same = known.get(text.length);
    const hit = same?.find(([t]) => t === text);
    if (hit) return hit[1];
    const key = textKey(text);
    if (!same) known.set(text.length, (same = []));
    same.unshift([text, key]);
    if (same.length > SAME_LENGTH) same.pop();
    return key;
  };
  return (text) => {
    const key = keyOf(text);
    let value = memo.get(key);
    if (value === undefined) memo.set(key, (value = make(text)));
    return value;
  };
}
