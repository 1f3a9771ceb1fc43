import { collectGarbage } from '../collect-garbage.js';

/**
 * Compact JSON written out piece by piece: the same bytes as
 * `JSON.stringify(value)`, without ever holding the whole document as one
 * string. A 12 MB proposal's review is ~50 MB of JSON; one string of it is
 * built twice as wide as it is (UTF-16, once a single `’` is in it) and grown
 * by doubling — hundreds of MB for what the pipe reads in chunks (issue 20 §8).
 */
const CHUNK = 64 * 1024;
const LONG_SLICE = 1024 * 1024;
const COLLECT_EVERY = 16 * 1024 * 1024;

export function writeJsonCompact(value: unknown, write: (s: string) => void): void {
  let buf: string[] = [];
  let size = 0;
  const emit = (s: string) => {
    buf.push(s);
    size += s.length;
    if (size >= CHUNK) flush();
  };
  let sinceCollect = 0;
  // every chunk written is garbage at once: collect now and then, or a 50 MB document leaves 50 MB of it
  const collectNowAndThen = (written: number) => {
    sinceCollect += written;
    if (sinceCollect >= COLLECT_EVERY) (collectGarbage(), (sinceCollect = 0));
  };
  const flush = () => {
    if (buf.length) write(buf.join(''));
    collectNowAndThen(size);
    buf = [];
    size = 0;
  };
  const walk = (v: unknown, inArray: boolean): void => {
    // only plain objects and arrays are walked here; everything else (strings, numbers, a toJSON) is JSON.stringify's own answer
    if (Array.isArray(v)) {
      emit('[');
      v.forEach((item, i) => {
        if (i) emit(',');
        walk(item, true);
      });
      emit(']');
      return;
    }
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON !== 'function') {
      emit('{');
      let first = true;
      for (const k of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[k];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        if (!first) emit(',');
        first = false;
        emit(JSON.stringify(k) + ':');
        walk(item, false);
      }
      emit('}');
      return;
    }
    if (typeof v === 'string' && v.length > CHUNK) {
      // a long string (a diff) escaped slice by slice: never a second whole copy of it. The slices
      // are big: slicing a long string built by concatenation costs per slice, and 64 KB slices of
      // a 24 MB diff took three times as long as escaping it (issue 20 §8)
      emit('"');
      flush();
      for (let i = 0; i < v.length; ) {
        let end = Math.min(v.length, i + LONG_SLICE);
        const c = v.charCodeAt(end - 1);
        if (end < v.length && c >= 0xd800 && c <= 0xdbff) end--; // a surrogate pair stays whole (a lone one is escaped alike either way)
        const escaped = escapeInner(v.slice(i, end));
        write(escaped);
        collectNowAndThen(escaped.length);
        i = end;
      }
      emit('"');
      return;
    }
    const s = JSON.stringify(v);
    emit(s === undefined ? (inArray ? 'null' : '') : s);
  };
  walk(value, true);
  flush();
}

/** Any character JSON.stringify escapes in a string other than a line feed: quote, backslash, other controls, any surrogate. */
const ESCAPED_BUT_LF = /["\\\u0000-\u0009\u000b-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(s)` without its quotes. A diff's text has line feeds and
 * rarely anything else to escape: then escaping them alone is the same bytes,
 * in less than half the time of JSON.stringify's scan (issue 20 §8: a 12 MB
 * proposal's review prints ~50 MB of diff).
 */
export function escapeInner(s: string): string {
  if (!ESCAPED_BUT_LF.test(s)) return s.replaceAll('\n', '\\n');
  return JSON.stringify(s).slice(1, -1);
}
