import { isVaultgateError } from '../errors.js';
import type { ReviewCheck } from '../policy/index.js';
import { MAX_READ_PRECONDITIONS } from '../txn/index.js';
import { normalizeVaultPath, readVaultBytes, sha256Hex } from '../vault/index.js';
import type { FileLinks } from './link-review.js';
import type { LinkTarget, StoredChange } from './types.js';

/**
 * The `link_target` check (issue 22 §1, Veynrel's last barrier): what review
 * showed as a new link's target is what apply writes. When a proposal is made,
 * every link it adds is recorded with the file it opens and that file's hash;
 * every review (and the review apply runs under the vault lock) resolves the
 * link text again from the note it goes into, exactly as Obsidian would after
 * the change, and blocks when it no longer opens that file with those bytes
 * (moved away and a namesake created, edited, deleted, or a link that opened
 * nothing now opening something). The targets the change does not write are
 * also handed to the engine as read preconditions, so it checks their bytes
 * again right before it writes, and they are part of the approval hash.
 */

/** A plan's link, as `plan` checked it: recorded as planned, not as found a moment later. */
export interface ExpectedLinkTarget {
  source: string;
  raw: string;
  target: string;
  target_sha256: string;
}

/** SHA-256 of a file as it will be after the change: the proposal's own new bytes for a file it writes or moves in, else the disk's. */
export function targetHasher(root: string, changes: readonly StoredChange[]): (rel: string) => string | null {
  const own = new Map<string, string | null>();
  for (const c of changes) {
    if (c.action === 'write') own.set(c.path, c.new_sha256);
    if (c.action === 'move') own.set(c.to!, c.new_sha256);
  }
  const memo = new Map<string, string | null>();
  return (rel) => {
    if (own.has(rel)) return own.get(rel)!;
    if (!memo.has(rel)) {
      let sha: string | null;
      try {
        sha = sha256Hex(readVaultBytes(root, normalizeVaultPath(rel)).bytes);
      } catch (e) {
        // gone, a symlink, an over-large file: nothing the check can vouch for
        if (!isVaultgateError(e)) throw e;
        sha = null;
      }
      memo.set(rel, sha);
    }
    return memo.get(rel)!;
  };
}

const sourceOf = (c: StoredChange) => c.to ?? c.path;
const keyOf = (source: string, kind: string, raw: string) => `${source}\0${kind}\0${raw}`;

/** Every link the change adds (not external), with what it opens now: the record a new proposal keeps. */
export function recordLinkTargets(changes: readonly StoredChange[], files: readonly FileLinks[], hashOf: (rel: string) => string | null, expected: readonly ExpectedLinkTarget[] = []): LinkTarget[] {
  const out: LinkTarget[] = [];
  const planned = [...expected];
  changes.forEach((c, i) => {
    for (const l of files[i]?.links_added ?? []) {
      if (l.status === null || l.status === 'external') continue;
      const source = sourceOf(c);
      const at = planned.findIndex((e) => e.source === source && e.raw === l.raw);
      if (at >= 0) {
        // the plan's own check is the precondition: if the vault moved since, the first review blocks
        const e = planned.splice(at, 1)[0]!;
        out.push({ source, line: l.line, kind: l.kind, raw: l.raw, status: 'resolved', target: e.target, target_sha256: e.target_sha256 });
        continue;
      }
      out.push({ source, line: l.line, kind: l.kind, raw: l.raw, status: l.status, target: l.target, target_sha256: l.target === null ? null : hashOf(l.target) });
    }
  });
  return out;
}

/** The targets the engine pins (read preconditions): those the change does not write itself, at most the engine's limit. */
export function linkTargetPins(targets: readonly LinkTarget[] | null, changes: readonly StoredChange[]): Record<string, string> {
  const written = new Set<string>();
  for (const c of changes) {
    written.add(c.path.toLowerCase());
    if (c.to) written.add(c.to.toLowerCase());
  }
  const pins: Record<string, string> = {};
  for (const t of [...(targets ?? [])].sort((a, b) => (a.target! < b.target! ? -1 : 1))) {
    if (t.target === null || t.target_sha256 === null || written.has(t.target.toLowerCase()) || Object.hasOwn(pins, t.target)) continue;
    // past the engine's limit the review's own check still covers every link
    if (Object.keys(pins).length >= MAX_READ_PRECONDITIONS) break;
    pins[t.target] = t.target_sha256;
  }
  return pins;
}

const short = (sha: string | null) => (sha === null ? '' : ` (sha256 ${sha.slice(0, 12)}…)`);

/** link_target: every recorded link still opens the same file with the same bytes. */
export function linkTargetChecks(recorded: readonly LinkTarget[] | null, changes: readonly StoredChange[], files: readonly FileLinks[], hashOf: (rel: string) => string | null): ReviewCheck[] {
  if (recorded === null) return [{ name: 'link_target', ok: true, severity: 'block', message: 'no link targets were recorded (proposed before vaultgate recorded them)' }];
  const now = new Map<string, FileLinks['links_added']>();
  changes.forEach((c, i) => {
    for (const l of files[i]?.links_added ?? []) {
      const k = keyOf(sourceOf(c), l.kind, l.raw);
      now.set(k, [...(now.get(k) ?? []), l]);
    }
  });
  const out: ReviewCheck[] = [];
  for (const r of recorded) {
    const cur = now.get(keyOf(r.source, r.kind, r.raw))?.shift();
    const at = `${r.source}:${r.line}: new link ${r.raw}`;
    const was = r.target === null ? `opened no file (${r.status})` : `opened ${r.target}${short(r.target_sha256)}`;
    const again = ' — the vault changed under the link since it was proposed; the agent should propose it again';
    if (cur === undefined) {
      out.push({ name: 'link_target', ok: false, severity: 'block', path: r.source, message: `${at} ${was} when proposed and is no longer in the change${again}`, details: { ...detail(r), now: null } });
      continue;
    }
    const target = cur.target;
    const sha = target === null ? null : hashOf(target);
    const same = r.target === target && r.target_sha256 === sha && (r.target !== null || r.status === cur.status);
    if (same) continue;
    const nowText =
      target === null
        ? `opens no file (${cur.status})`
        : target === r.target
          ? `opens ${target} with other content${short(sha)}: it was edited or replaced`
          : `opens ${target}${short(sha)}`;
    out.push({
      name: 'link_target',
      ok: false,
      severity: 'block',
      path: r.source,
      message: `${at} ${was} when proposed; it now ${nowText}${again}`,
      details: { ...detail(r), now: { status: cur.status, target, sha256: sha } },
    });
  }
  if (out.length > 0) return out;
  return [{ name: 'link_target', ok: true, severity: 'block', message: recorded.length === 0 ? 'the change adds no link' : `every new link opens the file it opened when proposed (${recorded.length} checked)`, details: { checked: recorded.length } }];
}

function detail(r: LinkTarget): Record<string, unknown> {
  return { source: r.source, line: r.line, raw: r.raw, status: r.status, target: r.target, target_sha256: r.target_sha256 };
}
