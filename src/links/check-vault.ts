import { linkFoldKey } from './fold.js';
import { isBrokenAnchor, isExternalLink, resolveLink } from './resolve-link.js';
import type { SubpathResult } from './resolve-subpath.js';
import { openVaultView, type LinkWarning, type VaultView } from './vault-view.js';

export interface LinkAt {
  source: string;
  line: number;
  raw: string;
}

export interface VaultHealth {
  counts: {
    notes: number;
    files: number;
    links: number;
    resolved: number;
    unresolved: number;
    ambiguous: number;
    unindexed: number;
    external: number;
    broken_anchors: number;
    orphans: number;
    invalid_frontmatter: number;
    collisions: number;
    warnings: number;
  };
  items: {
    unresolved: (LinkAt & { path: string })[];
    ambiguous: (LinkAt & { candidates: string[] })[];
    /** Links to a file in a folder the vault config leaves unindexed (`counts.unindexed` counts them; issue 21: a count lists what it counts). */
    unindexed: (LinkAt & { target: string })[];
    broken_anchors: (LinkAt & { target: string; subpath: SubpathResult })[];
    orphans: string[];
    invalid_frontmatter: { path: string; line: number; column: number; code: string; message: string }[];
    collisions: { kind: 'case' | 'nfc'; paths: string[] }[];
  };
  warnings: LinkWarning[];
}

/**
 * `check`: the link health of the whole (indexed) vault. Only notes outside the
 * configured exclusions are read; their links are resolved against every file
 * Obsidian sees. Read-only. Unreadable notes go to `warnings`; the check goes on.
 *
 * Definitions (decided):
 * - orphan: an indexed note that no *other* indexed note links to. A link counts
 *   when it resolves to the note, or is ambiguous with the note among its
 *   candidates (it may point there), whatever its kind (body, embed, frontmatter,
 *   inside a comment). Attachments are never orphans: only notes are reported.
 *   Excluded notes are not read, so a note linked only from one is an orphan; an
 *   unreadable note (a warning) is not judged either way.
 * - collision `case`: files whose paths differ only by case (after NFC): one link
 *   target in Obsidian, two files on a case-sensitive disk.
 * - collision `nfc`: files whose names differ only by Unicode normalisation on
 *   disk (NFC vs NFD): the same name for Obsidian and for vaultgate.
 */
export function checkVault(root: string, view: VaultView = openVaultView(root)): VaultHealth {
  const notes = view.notePaths();
  const h: VaultHealth['items'] = { unresolved: [], ambiguous: [], unindexed: [], broken_anchors: [], orphans: [], invalid_frontmatter: [], collisions: [] };
  const counts = { links: 0, resolved: 0, unresolved: 0, ambiguous: 0, unindexed: 0, external: 0 };
  const linked = new Set<string>();

  for (const source of notes) {
    const model = view.note(source);
    if (model === null) continue;
    const fm = model.frontmatter?.error;
    if (fm) h.invalid_frontmatter.push({ path: source, line: fm.line, column: fm.column, code: fm.code, message: fm.message });
    for (const link of model.links) {
      counts.links++;
      if (isExternalLink(link)) {
        counts.external++;
        continue;
      }
      const r = resolveLink(view.index, link, source, view.anchors);
      counts[r.status]++;
      const at = { source, line: link.startLine, raw: link.raw };
      if (r.status === 'unresolved') h.unresolved.push({ ...at, path: link.path });
      if (r.status === 'ambiguous') h.ambiguous.push({ ...at, candidates: r.candidates! });
      if (r.status === 'unindexed' && r.target !== null) h.unindexed.push({ ...at, target: r.target });
      if (isBrokenAnchor(r)) h.broken_anchors.push({ ...at, target: r.target!, subpath: r.subpath! });
      const targets = r.status === 'ambiguous' ? r.candidates! : r.target !== null ? [r.target] : [];
      for (const t of targets) if (t !== source) linked.add(t);
    }
  }
  h.orphans = notes.filter((p) => !linked.has(p) && view.note(p) !== null);

  // Case collisions come from the index; NFC ones only the raw scan can see
  // (the scanner reports both files under the same NFC path).
  const byFold = new Map<string, Set<string>>();
  const byNfc = new Map<string, string[]>();
  for (const f of view.scanned) {
    const k = linkFoldKey(f.path);
    byFold.set(k, (byFold.get(k) ?? new Set()).add(f.path));
    byNfc.set(f.path, [...(byNfc.get(f.path) ?? []), f.diskPath]);
  }
  for (const paths of byNfc.values()) if (paths.length > 1) h.collisions.push({ kind: 'nfc', paths: paths.sort() });
  for (const paths of byFold.values()) if (paths.size > 1) h.collisions.push({ kind: 'case', paths: [...paths].sort() });

  return {
    counts: {
      notes: notes.length,
      files: view.index.files.length,
      ...counts,
      broken_anchors: h.broken_anchors.length,
      orphans: h.orphans.length,
      invalid_frontmatter: h.invalid_frontmatter.length,
      collisions: h.collisions.length,
      warnings: view.warnings.length,
    },
    items: h,
    warnings: view.warnings,
  };
}
