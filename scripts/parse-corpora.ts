/**
 * Parse every note of every shared corpus and print per-corpus totals and time.
 * `node --import tsx scripts/parse-corpora.ts` (reads ../shared/corpora in place).
 * Reading the files is not timed; the first corpus also pays for JIT warm-up.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseNote } from '../src/markdown/index.js';
import { readNoteFile, scanVault } from '../src/vault/index.js';

const root = process.env.VAULTGATE_CORPORA ?? path.resolve(import.meta.dirname, '../../shared/corpora');
const names = ['frontend-vault-ru', 'kepano-obsidian', 'openbox-ru', 'vaultofknowledge'];
let grand = 0;
let grandCpu = 0;
let grandNotes = 0;
let grandBytes = 0;
for (const name of names) {
  const vault = path.join(root, name, 'vault');
  const notes = scanVault(vault).files.filter((f) => f.ext === 'md');
  const texts = notes.map((f) => ({ path: f.path, text: readNoteFile(vault, f.path).text }));
  const t = { links: 0, inComment: 0, fmLinks: 0, headings: 0, tags: 0, yamlErrors: 0, frontmatter: 0, blockIds: 0, callouts: 0 };
  let slowest = { path: '', ms: 0 };
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (const n of texts) {
    const s = performance.now();
    const m = parseNote(n.text);
    const ms = performance.now() - s;
    if (ms > slowest.ms) slowest = { path: n.path, ms };
    t.links += m.links.length;
    t.inComment += m.links.filter((l) => l.inComment).length;
    t.fmLinks += m.links.filter((l) => l.kind === 'frontmatter').length;
    t.headings += m.headings.length;
    t.tags += m.tags.length;
    t.frontmatter += m.frontmatter ? 1 : 0;
    t.yamlErrors += m.frontmatter?.error ? 1 : 0;
    t.blockIds += m.blockIds.length;
    t.callouts += m.callouts.length;
    grandBytes += n.text.length;
  }
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  grandCpu += (used.user + used.system) / 1000;
  grand += ms;
  grandNotes += texts.length;
  console.log(`${name}: ${texts.length} notes in ${ms.toFixed(0)} ms; slowest ${slowest.path} ${slowest.ms.toFixed(0)} ms;`, JSON.stringify(t));
}
console.log(`total: ${grandNotes} notes, ${(grandBytes / 1e6).toFixed(1)}M UTF-16 units, parse ${grand.toFixed(0)} ms wall, ${grandCpu.toFixed(0)} ms CPU`);
