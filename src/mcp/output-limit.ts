/**
 * The MCP face's output limit. MCP clients cap what a tool may return (Claude
 * Code warns at 10k tokens and cuts at 25k; others fail outright), and a client
 * that cuts a JSON document silently hands the model half an object. So the
 * server keeps every result under `maxChars` itself and says what it left out
 * and how to get it — never a silent cut.
 *
 * How: the operations already bound most results (`limit`, `budget_chars`, a
 * note's `max_chars` window). What still does not fit loses trailing items of
 * its largest lists first (the last search hits, the last check items), then,
 * only if no list is left to shorten, the end of its longest text (at a line
 * or word end, never mid-word); the document then carries `output_limit:
 * {truncated: true, max_chars, omitted, hint}`. Order and every field of what
 * remains are the CLI's. A result's text block is this same JSON, so the limit
 * bounds both. What an operation can bound itself it does, listing what it
 * left out in its own data (a note's `window.next_cursor`, a context packet's
 * `truncated[]`): this cut is the last resort.
 */

export interface OutputLimitNote {
  /** Always true: this result is not the whole answer. */
  truncated: true;
  /** The limit the server runs with (`vaultgate mcp --max-output-chars`). */
  max_chars: number;
  /** What was left out, by JSON path: items of a list, or characters of a text. */
  omitted: Record<string, { items: number } | { chars: number }>;
  /** How to get the rest. */
  hint: string;
  /** For a tool that pages (`offset`): the `offset` that continues after the last item kept. */
  next_offset?: number;
}

/** Room kept for the `output_limit` note itself. */
const NOTE_ROOM = 600;

const size = (v: unknown) => JSON.stringify(v)?.length ?? 0;

interface Slot {
  path: string;
  holder: Record<string, unknown>;
  key: string;
}

/** Lists and texts of the document at depth 1 and 2 (`hits`, `items.orphans`), where a result's bulk is. */
function slots(doc: Record<string, unknown>): { lists: Slot[]; texts: Slot[] } {
  const lists: Slot[] = [];
  const texts: Slot[] = [];
  const visit = (holder: Record<string, unknown>, prefix: string, depth: number) => {
    for (const key of Object.keys(holder)) {
      const v = holder[key];
      const path = prefix ? `${prefix}.${key}` : key;
      if (Array.isArray(v)) lists.push({ path, holder, key });
      else if (typeof v === 'string') texts.push({ path, holder, key });
      else if (v && typeof v === 'object' && depth < 2) visit(v as Record<string, unknown>, path, depth + 1);
    }
  };
  visit(doc, '', 1);
  return { lists, texts };
}

/**
 * `doc` unchanged when its JSON fits `maxChars`; else a copy cut to fit, with
 * `output_limit` saying what went. `hint` tells how to ask for less.
 */
export function fitOutput(doc: Record<string, unknown>, maxChars: number, hint: string): { doc: Record<string, unknown>; cut: boolean } {
  if (size(doc) <= maxChars) return { doc, cut: false };
  const out = structuredClone(doc);
  const target = Math.max(0, maxChars - NOTE_ROOM);
  const omitted: OutputLimitNote['omitted'] = {};
  const { lists, texts } = slots(out);

  // Shorten the largest list until the document fits or every list is empty.
  for (;;) {
    const excess = size(out) - target;
    if (excess <= 0) break;
    let best: Slot | undefined;
    let bestSize = 0;
    for (const s of lists) {
      const n = (s.holder[s.key] as unknown[]).length && size(s.holder[s.key]);
      if (n > bestSize) [best, bestSize] = [s, n];
    }
    if (!best) break;
    const list = best.holder[best.key] as unknown[];
    let removed = 0;
    let dropped = 0;
    while (list.length > 0 && removed < excess) {
      removed += size(list.pop()) + 1;
      dropped++;
    }
    const prev = omitted[best.path];
    omitted[best.path] = { items: (prev && 'items' in prev ? prev.items : 0) + dropped };
  }

  // Still too large (one huge text): cut the longest text at its end.
  for (;;) {
    const excess = size(out) - target;
    if (excess <= 0) break;
    let best: Slot | undefined;
    let bestLen = 0;
    for (const s of texts) {
      const n = (s.holder[s.key] as string).length;
      if (n > bestLen) [best, bestLen] = [s, n];
    }
    if (!best || bestLen === 0) break;
    const text = best.holder[best.key] as string;
    // JSON escaping makes a character cost 1–6; cut by the escaped excess, then re-check.
    let keep = Math.max(0, text.length - Math.max(excess, Math.ceil(text.length / 8)));
    // never mid-word: back to the last line end or space within 200 characters
    const edge = Math.max(text.lastIndexOf('\n', keep), text.lastIndexOf(' ', keep));
    if (edge > 0 && keep - edge <= 200) keep = edge;
    if (keep > 0 && /[\ud800-\udbff]/.test(text[keep - 1]!)) keep--;
    best.holder[best.key] = text.slice(0, keep);
    const prev = omitted[best.path];
    omitted[best.path] = { chars: (prev && 'chars' in prev ? prev.chars : 0) + (text.length - keep) };
  }

  const note: OutputLimitNote = { truncated: true, max_chars: maxChars, omitted, hint };
  return { doc: { ...out, output_limit: note }, cut: true };
}
