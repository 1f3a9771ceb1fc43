import crypto from 'node:crypto';

/**
 * The key a note's text is memoised under (its parse, shared by review's checks
 * and the link rewriter). Never the long text itself: V8 hashes a string of more
 * than 16,383 characters by its length alone, so a Map keyed by many long texts
 * of one length (notes made from one template, a change that keeps the length)
 * compares them whole against each other — quadratic: 2,000 such 200 KB keys
 * took over 5 minutes to insert and look up (issue 20 §8). A long text is keyed
 * by its SHA-256 instead; the prefixes keep the two kinds of key apart.
 *
 * "Long" starts at {@link HASH_KEY_CHARS}, far below V8's limit: a text keyed
 * by hash has its parse kept between commands (parse-cache.ts), and a note of a
 * few KB parses in ~100 µs where its kept parse reads back in ~10: a proposal of
 * 1,000 ordinary notes parsed its 2,000 texts again in every review and apply.
 */
export const HASH_KEY_CHARS = 1_000;
const LONG = HASH_KEY_CHARS;

export function textKey(text: string): string {
  return text.length <= LONG ? `t${text}` : `h${text.length}:${crypto.createHash('sha256').update(text).digest('base64')}`;
}

/**
 * `textKey(text)` without hashing, from the SHA-256 (hex) of the text's UTF-8
 * bytes when it is already known exactly: the proposal store checks every text
 * against its hash when it keeps or reads it.
 */
export function textKeyOfHash(text: string, sha256: string): string {
  return text.length <= LONG ? `t${text}` : `h${text.length}:${Buffer.from(sha256, 'hex').toString('base64')}`;
}

/** Texts whose key is already known (`[text, textKey(text)]`): a memo starts with them, unhashed. */
export type KnownTextKeys = Iterable<readonly [string, string]>;

/** Whether a key names its text by hash (a long text), not by the text itself. */
export function isHashKey(key: string): boolean {
  return key.startsWith('h');
}

/** Texts of one bucket remembered by identity; past this, a key is hashed again (many same-length texts sharing a long prefix would make `===` slow). */
const SAME_BUCKET = 8;
/** Characters sampled, evenly spread, to tell apart texts of one length without reading them whole. */
const SAMPLES = 32;

/**
 * The bucket a long text's key is remembered in: its length and a few of its
 * characters. A length alone put every note made from one template, or every
 * 200 KB note of a bulk rewrite, in one bucket of eight, and a review that
 * asks for 120 such texts from four checks hashed each of them again every time.
 */
function bucketOf(text: string): string {
  let b = `${text.length}:`;
  for (let i = 0; i < SAMPLES; i++) b += text[Math.floor((i * (text.length - 1)) / (SAMPLES - 1))];
  return b;
}

/**
 * Get-or-make over a memo keyed by `textKey`, remembering each text's key by
 * the text itself: a review asks for the same notes' parses from several
 * checks, and hashing a long text again each time cost more than the parse of
 * a short one (issue 20 §8: 60 texts of 200 KB were hashed over 300 times).
 * The same string is found by `===` among the remembered texts of its bucket
 * (a pointer compare for the same string, a length-and-prefix compare for
 * another); never as a Map key of its own (see above). `preset`: values to
 * answer with, by key, when the memo has none, without making or memoising one
 * (review's view of a base text the index holds: never kept as a parse).
 */
export function textMemo<T, P = T>(memo: Map<string, T>, make: (text: string) => T, seed: KnownTextKeys = [], preset?: ReadonlyMap<string, P>): (text: string) => T | P {
  const known = new Map<string, Array<readonly [string, string]>>();
  const remember = (text: string, key: string) => {
    const bucket = bucketOf(text);
    let same = known.get(bucket);
    if (!same) known.set(bucket, (same = []));
    same.unshift([text, key]);
    if (same.length > SAME_BUCKET) same.pop();
  };
  for (const [text, key] of seed) if (text.length > LONG) remember(text, key);
  const keyOf = (text: string): string => {
    if (text.length <= LONG) return textKey(text);
    const hit = known.get(bucketOf(text))?.find(([t]) => t === text);
    if (hit) return hit[1];
    const key = textKey(text);
    remember(text, key);
    return key;
  };
  return (text) => {
    const key = keyOf(text);
    const value = memo.get(key) ?? preset?.get(key);
    if (value !== undefined) return value;
    const made = make(text);
    memo.set(key, made);
    return made;
  };
}
