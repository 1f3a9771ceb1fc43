/**
 * A fast path for the frontmatter most notes have: `key: word words`, `key: [a, b]`
 * and `key:` over `- item` lines, every value a plain string. The `yaml` library
 * takes ~0.1 ms per such block, 7% of a cold index's CPU; this reads the same
 * blocks ~20× faster and gives the same data and string ranges. Anything else —
 * quotes, comments, numbers, booleans, nulls, dates of another form, tabs, CR,
 * empty lines, nested maps, a repeated key — returns null and the caller parses
 * with `yaml` as before, so the fast path can only ever agree with the library
 * (test/unit/markdown/simple-frontmatter.test.ts compares the two on generated blocks).
 */

/** A string value of the block, with its range in the YAML text (as the `yaml` library's `node.range[0..1]`). */
export interface SimpleScalar {
  value: string;
  range: [number, number];
}

export interface SimpleEntry {
  key: string;
  /** A scalar, or a list of them (block or flow sequence). */
  value: SimpleScalar | SimpleScalar[];
}

/**
 * A plain scalar that can only be a string: starts with a letter, digit or `_`,
 * then letters, digits, marks, `_`, `.`, `/`, `-` and single spaces inside. No
 * YAML indicator (`:`, `,`, `#`, brackets, quotes…) can occur.
 */
const SAFE = /^[\p{L}\p{N}_][\p{L}\p{N}\p{M}_./-]*(?: [\p{L}\p{N}\p{M}_./-]+)*$/u;
/** What the 1.2 core schema reads as null, a boolean or a number (starting as SAFE can). */
const NOT_STRING = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)$/;

function plainString(s: string): boolean {
  return SAFE.test(s) && !NOT_STRING.test(s);
}

const KEY_LINE = /^([^\s:][^:]*):(?: (.*))?$/;
const ITEM_LINE = /^( *)- (.*)$/;

/** The block's entries, or null when it is not of the simple form (then parse it with `yaml`). */
export function readSimpleFrontmatter(yamlText: string): SimpleEntry[] | null {
  if (yamlText === '' || yamlText.includes('\r') || yamlText.includes('\t') || yamlText.includes('#')) return null;
  const entries: SimpleEntry[] = [];
  const keys = new Set<string>();
  let pos = 0;
  // The key whose value is a block sequence being read, and its items' indent.
  let list: SimpleScalar[] | null = null;
  let indent = -1;
  while (pos < yamlText.length) {
    const nl = yamlText.indexOf('\n', pos);
    const end = nl === -1 ? yamlText.length : nl;
    const line = yamlText.slice(pos, end);
    const item = list ? ITEM_LINE.exec(line) : null;
    if (item && list) {
      const n = item[1]!.length;
      if (indent === -1) indent = n;
      if (n !== indent || !plainString(item[2]!)) return null;
      const start = pos + n + 2;
      list.push({ value: item[2]!, range: [start, start + item[2]!.length] });
    } else {
      // A key with no items under it is a null: not simple.
      if (list && list.length === 0) return null;
      list = null;
      const m = KEY_LINE.exec(line);
      if (!m) return null;
      const key = m[1]!;
      if (!plainString(key) || key === '__proto__' || keys.has(key)) return null;
      keys.add(key);
      const raw = m[2];
      const valueStart = pos + key.length + 2;
      if (raw === undefined) {
        list = [];
        indent = -1;
        entries.push({ key, value: list });
      } else if (raw.startsWith('[')) {
        const items = flowItems(raw, valueStart);
        if (!items) return null;
        entries.push({ key, value: items });
      } else {
        if (!plainString(raw)) return null;
        entries.push({ key, value: { value: raw, range: [valueStart, valueStart + raw.length] } });
      }
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  if (list && list.length === 0) return null;
  return entries.length > 0 ? entries : null;
}

/** `[a, b c, d]`: items separated by commas, each a plain string, spaces around them allowed. */
function flowItems(raw: string, offset: number): SimpleScalar[] | null {
  if (!raw.endsWith(']')) return null;
  const out: SimpleScalar[] = [];
  let from = 1;
  const close = raw.length - 1;
  while (from <= close) {
    const comma = raw.indexOf(',', from);
    const to = comma === -1 ? close : comma;
    const piece = raw.slice(from, to);
    const lead = piece.length - piece.replace(/^ +/, '').length;
    const value = piece.slice(lead).replace(/ +$/, '');
    if (!plainString(value)) return null;
    const start = offset + from + lead;
    out.push({ value, range: [start, start + value.length] });
    if (comma === -1) break;
    from = comma + 1;
  }
  return out.length > 0 ? out : null;
}

/** The JS value `yaml`'s `toJS` gives for the entries. */
export function simpleData(entries: SimpleEntry[]): Record<string, string | string[]> {
  const data: Record<string, string | string[]> = {};
  for (const e of entries) data[e.key] = Array.isArray(e.value) ? e.value.map((s) => s.value) : e.value.value;
  return data;
}
