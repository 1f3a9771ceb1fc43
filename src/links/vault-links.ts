import { parseNote } from '../markdown/index.js';
import type { Link, LinkKind } from '../markdown/index.js';
import { isExternalLink, resolveLink, type AnchorLookup, type LinkResolution } from './resolve-link.js';
import type { FileIndex } from './file-index.js';
import type { LinkStatus, ResolutionRule } from './resolve-path.js';
import type { SubpathResult } from './resolve-subpath.js';
import { checkFileArg, readLinkArgs, readNoteArg } from './note-args.js';
import { openVaultView, type LinkWarning } from './vault-view.js';

/**
 * The command-facing operations on links. Each takes a vault root and plain
 * arguments and returns plain data; the CLI (and later MCP) only renders it.
 * They scan and parse the vault directly for now; the index will replace
 * `openVaultView` without changing these signatures.
 */

export interface ResolveResult {
  link: string;
  from: string;
  kind: LinkKind;
  status: LinkStatus;
  target: string | null;
  candidates: string[] | null;
  rule: ResolutionRule;
  subpath: SubpathResult | null;
  /** Problems reading the target note (its subpath is then not checked). */
  warnings: LinkWarning[];
}

/** `resolve LINK --from NOTE`: LINK is the text as written (`[[A#B|c]]`, `[t](a%20b.md)`, or a bare target). */
export function resolveInVault(root: string, linkText: string, from: string | undefined): ResolveResult {
  const { source, syntax } = readLinkArgs(root, linkText, from);
  const view = openVaultView(root);
  const r = resolveLink(view.index, syntax, source, view.anchors);
  return { link: linkText, from: source, kind: syntax.kind, ...pick(r), warnings: view.warnings };
}

/** One link of a note with its resolution. `status` is `external` for a Markdown link to a URL. */
export interface NoteLinkReport {
  line: number;
  kind: LinkKind;
  raw: string;
  path: string;
  status: LinkStatus | 'external';
  target: string | null;
  candidates: string[] | null;
  rule: ResolutionRule | null;
  subpath: SubpathResult | null;
  in_comment: boolean;
  property: string | null;
}

export function reportLink(index: FileIndex, link: Link, from: string, anchors: AnchorLookup): NoteLinkReport {
  const base = {
    line: link.startLine,
    kind: link.kind,
    raw: link.raw,
    path: link.path,
    in_comment: link.inComment,
    property: link.property ?? null,
  };
  if (isExternalLink(link)) {
    return { ...base, status: 'external', target: null, candidates: null, rule: null, subpath: null };
  }
  return { ...base, ...pick(resolveLink(index, link, from, anchors)) };
}

/** `links NOTE`: every link of the note in document order, resolved. */
export function noteLinks(root: string, note: string): { note: string; links: NoteLinkReport[]; warnings: LinkWarning[] } {
  const file = readNoteArg(root, note);
  const model = parseNote(file.text);
  const view = openVaultView(root);
  // The note itself was just read strictly; reuse it for `[[#H]]` rather than reading it twice.
  const anchors: AnchorLookup = (p) => (p === file.path ? model : view.anchors(p));
  const links = model.links.map((l) => reportLink(view.index, l, file.path, anchors));
  return { note: file.path, links, warnings: view.warnings };
}

export interface BacklinkReport {
  source: string;
  line: number;
  kind: LinkKind;
  raw: string;
  status: LinkStatus;
  /** The other files the link could name (when several matched), else null. */
  candidates: string[] | null;
  subpath: SubpathResult | null;
  in_comment: boolean;
  property: string | null;
}

/**
 * `backlinks NOTE`: every link in the (indexed) vault whose target is NOTE, and,
 * apart, the ambiguous links that list NOTE among their candidates (Obsidian's
 * pick for those is undetermined, so they may point here). Self-links count:
 * `[[#H]]` is a self-edge in Obsidian's `resolvedLinks` (observed,
 * markdown-vault-mcp #1385). NOTE may be any vault file, an image included.
 */
export function backlinks(
  root: string,
  note: string,
): { note: string; backlinks: BacklinkReport[]; ambiguous: BacklinkReport[]; warnings: LinkWarning[] } {
  const target = checkFileArg(root, note);
  const view = openVaultView(root);
  const found: BacklinkReport[] = [];
  const maybe: BacklinkReport[] = [];
  for (const source of view.notePaths()) {
    const model = view.note(source);
    if (model === null) continue;
    for (const link of model.links) {
      if (isExternalLink(link)) continue;
      const r = resolveLink(view.index, link, source, (p) => (p === target ? view.anchors(p) : null));
      const hit = r.target === target;
      if (!hit && !(r.status === 'ambiguous' && r.candidates!.includes(target))) continue;
      (hit ? found : maybe).push({
        source,
        line: link.startLine,
        kind: link.kind,
        raw: link.raw,
        status: r.status,
        candidates: r.candidates,
        subpath: r.subpath,
        in_comment: link.inComment,
        property: link.property ?? null,
      });
    }
  }
  return { note: target, backlinks: found, ambiguous: maybe, warnings: view.warnings };
}

function pick(r: LinkResolution) {
  return { status: r.status, target: r.target, candidates: r.candidates, rule: r.rule, subpath: r.subpath };
}
