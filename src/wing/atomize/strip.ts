import fs from 'node:fs';
import path from 'node:path';
import { loadYaml } from '../../lazy-require.js';
import { linkTextFor, type FileIndex, type LinkFormat } from '../../links/index.js';
import { readChapters } from './chapters.js';
import { addLinks, planIndex, type LinkTarget } from './links.js';
import { narrativeTest } from './narrative.js';
import { isOwnLine } from '../../markdown/own-lines.js';
import { readRegistry } from './registry.js';
import { finalPath } from './write.js';
import { files, notReady, nowIso, readSource, saveState, writeAtomic, type Work } from './work.js';

/**
 * `atomize strip --work DIR`: every draft line that comes from a narrative
 * chapter (narrative.ts) is removed, and the links are put back where a
 * removed line held an entity's first mention. Then one map-of-content draft
 * links each narrative chapter's original heading (by name, when the source is
 * a note of the vault), so the example of play stays one readable piece.
 */
export interface StripResult {
  notes: number;
  lines_removed: number;
  notes_changed: number;
  links_added: number;
  map: string | null;
  narrative_chapters: number;
}

export function mapNoteName(work: Work): string {
  const title = path.basename(work.state.source.vault_path ?? work.state.source.file).replace(/\.(md|markdown)$/i, '');
  return `${title.replace(/[\\/:*?"<>|#^[\]]/g, ' ').trim() || 'Source'} (narrative chapters).md`;
}

export function atomizeStrip(work: Work, env: { vaultFiles: readonly string[]; format: LinkFormat }): StripResult {
  const w = work.state.write;
  if (!w) throw notReady('there are no drafts to strip yet', 'Run `vaultgate atomize write --work DIR` first.');
  const source = readSource(work);
  const chapters = readChapters(work);
  const test = narrativeTest(source, chapters);
  if (test.chapters.join(',') !== (w.narrative ?? []).join(',')) {
    throw notReady('the narrative chapters changed in chapters.tsv since the drafts were written', 'Run `vaultgate atomize write --work DIR` again, then strip.');
  }
  const f = files(work.dir);
  const { rows } = readRegistry(work);
  const written = new Set(w.notes);
  const targets: LinkTarget[] = rows.filter((r) => written.has(r.note)).map((r) => ({ path: finalPath(work, r.note), terms: [r.name, ...r.aliases] }));
  const map = test.chapters.length ? mapNoteName(work) : null;
  const planned = [...targets.map((t) => t.path), ...(map ? [finalPath(work, map)] : [])];
  const index = planIndex(env.vaultFiles, planned);
  let removed = 0;
  let changed = 0;
  let linksAdded = 0;
  for (const note of w.notes) {
    const file = path.join(f.notes, note);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // removed by hand: nothing to strip
    }
    const lines = text.split('\n');
    const kept: string[] = [];
    let inBody = false;
    let fm = lines[0]?.trim() === '---' ? 0 : -1;
    let cut = 0;
    lines.forEach((line, i) => {
      if (fm === 0 && i > 0 && line.trim() === '---') fm = 1;
      if (fm !== 0 && /^#\s/.test(line)) inBody = true;
      if (inBody && !/^#{1,6}\s/.test(line) && !isOwnLine(line) && line.trim() !== '' && test.fromNarrative(line)) {
        cut++;
        // the blank line that separated the removed paragraph goes with it
        if (kept.length && kept[kept.length - 1]!.trim() === '' && (lines[i + 1] ?? '').trim() === '') kept.pop();
        return;
      }
      kept.push(line);
    });
    if (cut === 0) continue;
    removed += cut;
    changed++;
    const relinked = addLinks(kept.join('\n'), finalPath(work, note), targets, index, env.format);
    linksAdded += relinked.added;
    writeAtomic(file, relinked.text);
  }
  if (map) writeAtomic(path.join(f.notes, map), mapText(work, chapters.filter((c) => c.narrative), finalPath(work, map), index));
  else fs.rmSync(path.join(f.notes, mapNoteName(work)), { force: true });
  work.state.strip = { write_at: w.at, lines_removed: removed, map, at: nowIso() };
  saveState(work);
  return { notes: w.notes.length, lines_removed: removed, notes_changed: changed, links_added: linksAdded, map, narrative_chapters: test.chapters.length };
}

function mapText(work: Work, narrative: readonly { heading: string }[], from: string, index: FileIndex): string {
  const { stringify } = loadYaml();
  const src = work.state.source;
  let book: string | null = null;
  if (src.vault_path) {
    try {
      book = linkTextFor(index, src.vault_path, from).path;
    } catch {
      book = null;
    }
  }
  const items = narrative.map((c) => (book !== null && c.heading !== '' && !/[[\]|#^]/.test(c.heading) ? `- [[${book}#${c.heading}|${c.heading}]]` : `- ${c.heading || path.basename(src.vault_path ?? src.file)}`));
  const fm = stringify({ source: src.vault_path ?? path.basename(src.file), source_sha256: src.sha256, kind: 'map' }).trimEnd();
  return ['---', fm, '---', `# ${mapNoteName(work).replace(/\.md$/, '')}`, '', ...items, ''].join('\n');
}
