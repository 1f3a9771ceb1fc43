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
/** Escaped long strings kept for reuse within one document, at most this many UTF-16 units in all. */
const MAX_REUSED = 64 * 1024 * 1024;

/** A long string already written in this document, with its escaped text. */
interface Written {
  raw: string;
  escaped: string[];
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

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
  // A review prints every file's diff and then `diff`, which is those diffs joined: each
  // long string written is kept with its escaped text, and a later string made of such
  // strings, end to end, writes their escaped text again instead of escaping it twice
  // (issue 20 §8: 24 MB of a 12 MB proposal's diffs). JSON escaping is per character, but
  // for a surrogate pair: a piece is reused only where no pair is split at its edges.
  const written: Written[] = [];
  let reusable = 0;
  let next = 0; // where the last reuse stopped among `written`: the diffs come in order
  const pieceAt = (v: string, at: number): Written | null => {
    for (let k = 0; k < written.length; k++) {
      const w = written[(next + k) % written.length]!;
      if (at + w.raw.length > v.length || !v.startsWith(w.raw, at)) continue;
      const end = at + w.raw.length;
      if ((at > 0 && isHigh(v.charCodeAt(at - 1)) && isLow(v.charCodeAt(at))) || (end < v.length && isHigh(v.charCodeAt(end - 1)) && isLow(v.charCodeAt(end)))) continue;
      next = (next + k + 1) % written.length;
      return w;
    }
    return null;
  };
  const escapeLong = (v: string, from: number, to: number, into: string[] | null) => {
    for (let i = from; i < to; ) {
      let end = Math.min(to, i + LONG_SLICE);
      const c = v.charCodeAt(end - 1);
      if (end < to && isHigh(c)) end--; // a surrogate pair stays whole (a lone one is escaped alike either way); a kept piece's edges split none
      const escaped = escapeInner(v.slice(i, end));
      write(escaped);
      into?.push(escaped);
      collectNowAndThen(escaped.length);
      i = end;
    }
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
      let at = 0;
      let fresh = 0; // start of the stretch no kept string covers
      while (at < v.length && written.length > 0) {
        const w = pieceAt(v, at);
        if (w === null) break;
        escapeLong(v, fresh, at, null);
        for (const e of w.escaped) write(e);
        at += w.raw.length;
        fresh = at;
      }
      if (fresh === 0 && reusable + v.length <= MAX_REUSED) {
        const kept: Written = { raw: v, escaped: [] };
        escapeLong(v, 0, v.length, kept.escaped);
        written.push(kept);
        reusable += v.length;
      } else escapeLong(v, fresh, v.length, null);
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
