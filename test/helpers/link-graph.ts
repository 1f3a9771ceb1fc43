/**
 * The link graph of a vault as the index holds it, and the checks a
 * link-preserving move must pass (issue #12 §3), shared by the property test
 * and the corpus suite:
 * - every link that opened a file before opens the same file after (where it
 *   moved), keyed by (note, position among the note's links), notes mapped
 *   through the move;
 * - no file changed but the moved ones and the notes holding rewritten links;
 * - a rewritten link keeps its kind, display, subpath, size and style, and the
 *   text around links is unchanged.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hasMdExtension } from '../../src/links/index.js';
import { parseNote, type Link } from '../../src/markdown/index.js';
import type { VaultSession } from '../../src/session/index.js';

export interface GraphLink {
  source: string;
  ord: number;
  kind: string;
  raw: string;
  status: string | null;
  target: string | null;
  in_comment: number;
  external: number;
}

/** Every link of every note, from the index (refreshed first). */
export function linkGraph(session: VaultSession): GraphLink[] {
  return session.read((h) =>
    h.db
      .prepare(
        `SELECT f.path AS source, l.ord, l.kind, l.raw, l.status, l.target, l.in_comment, l.external
         FROM links l JOIN files f ON f.id = l.file_id WHERE f.kind = 'note' ORDER BY f.path, l.ord`,
      )
      .all() as GraphLink[],
  ).result;
}

/** Every file of the vault (dot-folders left out) with its bytes. */
export function vaultFiles(root: string, rel = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) for (const [k, v] of vaultFiles(root, r)) out.set(k, v);
    else if (e.isFile()) out.set(r.normalize('NFC'), fs.readFileSync(path.join(root, r)));
  }
  return out;
}

const opens = (l: Pick<GraphLink, 'status' | 'target'>) => (l.status === 'resolved' || l.status === 'unindexed') && l.target !== null;

/** Style marks of a link as written that a rewrite must keep. */
function style(l: Link): Record<string, unknown> {
  const md = l.kind === 'markdown' || (l.kind === 'embed' && !l.raw.startsWith('![['));
  return {
    kind: l.kind,
    display: l.display,
    subpath: l.subpath,
    size: l.size,
    inComment: l.inComment,
    markdown: md,
    angle: md ? /\]\(\s*</.test(l.raw) : null,
    md: hasMdExtension(l.path.trim()),
    escapedBar: l.raw.includes('\\|'),
  };
}

/** The text of a note with its links cut out: what a rewrite must leave as it was. */
function between(text: string, links: readonly Link[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const l of links) {
    out.push(text.slice(at, l.range.start));
    at = l.range.end;
  }
  out.push(text.slice(at));
  return out;
}

export interface MoveCheck {
  /** from → to of every moved file. */
  moved: Map<string, string>;
  graphBefore: GraphLink[];
  graphAfter: GraphLink[];
  filesBefore: Map<string, Buffer>;
  filesAfter: Map<string, Buffer>;
  /** For messages. */
  label: string;
}

export interface MoveCheckResult {
  /** Links compared (opened a file before, not in a comment). */
  compared: number;
  /** Links whose text the move rewrote. */
  rewritten: number;
  /** Notes written besides the moved files. */
  holders: number;
}

/**
 * Assert the guarantees of a link-preserving move. Links inside %%comments%%
 * are not rewritten (issue #12 §1): only their text is checked unchanged.
 */
export function assertLinksKept(c: MoveCheck): MoveCheckResult {
  const mapped = (p: string) => c.moved.get(p) ?? p;
  const after = new Map(c.graphAfter.map((l) => [`${l.source}\0${l.ord}`, l]));
  let compared = 0;
  let rewritten = 0;
  for (const b of c.graphBefore) {
    const key = `${mapped(b.source)}\0${b.ord}`;
    const a = after.get(key);
    assert.ok(a, `${c.label}: ${b.source} link #${b.ord} ${b.raw} is gone after the move`);
    if (a.raw !== b.raw) rewritten++;
    if (b.in_comment === 1) {
      assert.equal(a.raw, b.raw, `${c.label}: a link inside a comment is not rewritten`);
      continue;
    }
    if (b.external === 1 || !opens(b)) {
      assert.equal(a.raw, b.raw, `${c.label}: ${b.source} ${b.raw} opened no file; it is not rewritten`);
      continue;
    }
    compared++;
    assert.equal(
      `${a.status === 'unindexed' ? 'resolved' : a.status} ${a.target}`,
      `resolved ${mapped(b.target!)}`,
      `${c.label}: ${b.source} link #${b.ord} ${b.raw} (now ${a.raw} in ${a.source}) opened ${b.target}`,
    );
  }
  assert.equal(c.graphAfter.length, c.graphBefore.length, `${c.label}: the move adds or removes links`);

  // files: the moved ones (bytes kept unless links inside were rewritten), holders, nothing else
  const movedTargets = new Set(c.moved.values());
  let holders = 0;
  for (const [p, bytes] of c.filesBefore) {
    if (c.moved.has(p)) {
      assert.ok(!c.filesAfter.has(p) || movedTargets.has(p), `${c.label}: ${p} moved away`);
      const now = c.filesAfter.get(c.moved.get(p)!);
      assert.ok(now, `${c.label}: ${c.moved.get(p)} exists after the move`);
      if (!now.equals(bytes)) checkRewrite(c.label, p, bytes, now);
      continue;
    }
    const now = c.filesAfter.get(p);
    assert.ok(now, `${c.label}: ${p} still exists`);
    if (!now.equals(bytes)) {
      holders++;
      checkRewrite(c.label, p, bytes, now);
    }
  }
  for (const p of c.filesAfter.keys()) assert.ok(c.filesBefore.has(p) || movedTargets.has(p), `${c.label}: ${p} appeared`);
  return { compared, rewritten, holders };
}

/** A note changed only inside links, and each changed link kept its kind, display, subpath, size and style. */
function checkRewrite(label: string, p: string, before: Buffer, after: Buffer): void {
  assert.ok(p.endsWith('.md'), `${label}: ${p} is not a note, yet its bytes changed`);
  const ta = before.toString('utf8');
  const tb = after.toString('utf8');
  assert.equal(tb.startsWith('\ufeff'), ta.startsWith('\ufeff'), `${label}: ${p} keeps its byte-order mark`);
  const a = parseNote(ta.replace(/^\ufeff/, ''));
  const b = parseNote(tb.replace(/^\ufeff/, ''));
  assert.equal(b.links.length, a.links.length, `${label}: ${p} has as many links`);
  assert.deepEqual(between(tb.replace(/^\ufeff/, ''), b.links), between(ta.replace(/^\ufeff/, ''), a.links), `${label}: ${p} changed outside its links`);
  a.links.forEach((l, i) => {
    const n = b.links[i]!;
    if (n.raw !== l.raw) assert.deepEqual(style(n), style(l), `${label}: ${p} ${l.raw} → ${n.raw} keeps display, subpath and style`);
  });
}
