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

/**
 * Get-or-make over a memo keyed by `textKey`, remembering the last few texts'
 * keys by the texts themselves (`===`: the same string is found at once, no
 * hashing): a review asks for the same note's parse from several checks.
 */
export function textMemo<T>(memo: Map<string, T>, make: (text: string) => T): (text: string) => T {
  const recent: Array<[string, string]> = [];
  return (text) => {
    let key = recent.find(([t]) => t === text)?.[1];
    if (key === undefined) {
      key = textKey(text);
      recent.unshift([text, key]);
      if (recent.length > 4) recent.pop();
    }
    let value = memo.get(key);
    if (value === undefined) memo.set(key, (value = make(text)));
    return value;
  };
}
