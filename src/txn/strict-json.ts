import { VaultgateError } from '../errors.js';
import { MAX_JSON_DEPTH } from './settings.js';

/**
 * A strict JSON parser for bundles. `JSON.parse` silently keeps the last of two
 * duplicate keys, turns `1e999` into `Infinity`, and accepts `"\ud800"` (a lone
 * surrogate that later becomes U+FFFD when encoded): each of those would let the
 * bytes a person approved differ from the bytes written. This parser refuses them,
 * with the offset of the offending character.
 *
 * Grammar: RFC 8259 exactly (no comments, no trailing commas, no BOM).
 */
export function parseStrictJson(text: string): unknown {
  let i = 0;
  const fail = (why: string, at = i): never => {
    throw new VaultgateError('BUNDLE_INVALID', `bundle is not strict JSON: ${why} at offset ${at}`, {
      details: { offset: at },
      hint: 'Emit the bundle with a JSON serializer; duplicate keys, non-finite numbers and lone surrogates are refused.',
    });
  };
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= text.length) fail('unterminated string', start);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(chunk, i);
        i++;
        break;
      }
      if (c < 0x20) fail('control character in string');
      if (c >= 0xd800 && c <= 0xdfff) {
        // a raw surrogate in the decoded text: only a well-formed pair is allowed
        const next = text.charCodeAt(i + 1);
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          i += 2;
          continue;
        }
        fail('lone surrogate');
      }
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(chunk, i);
      const e = text[i + 1];
      i += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const unit = hex4(i);
          i += 4;
          if (unit >= 0xd800 && unit <= 0xdbff) {
            if (text[i] !== '\\' || text[i + 1] !== 'u') fail('lone surrogate escape', i - 6);
            const low = hex4(i + 2);
            if (low < 0xdc00 || low > 0xdfff) fail('lone surrogate escape', i - 6);
            i += 6;
            out += String.fromCharCode(unit, low);
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            fail('lone surrogate escape', i - 6);
          } else out += String.fromCharCode(unit);
          break;
        }
        default:
          fail('invalid escape', i - 2);
      }
      chunk = i;
    }
    return out;
  };
  const hex4 = (at: number): number => {
    const h = text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) fail('invalid \\u escape', at);
    return parseInt(h, 16);
  };
  const num = (): number => {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail('invalid number');
    const v = Number(m![0]);
    if (!Number.isFinite(v)) fail('number out of range (non-finite)');
    i += m![0].length;
    return v;
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_JSON_DEPTH) fail(`nesting deeper than ${MAX_JSON_DEPTH}`);
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a string key');
        const at = i;
        const key = str();
        if (seen.has(key)) fail(`duplicate key ${JSON.stringify(key)}`, at);
        seen.add(key);
        ws();
        if (text[i] !== ':') fail('expected `:`');
        i++;
        // defineProperty: a key named __proto__ stays a plain own property
        Object.defineProperty(obj, key, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail('expected `,` or `}`');
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail('expected `,` or `]`');
      }
    }
    if (c === '"') return str();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return num();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail(i >= text.length ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
  };
  const result = value(0);
  ws();
  if (i !== text.length) fail('trailing characters after the document');
  return result;
}
