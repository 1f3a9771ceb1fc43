/**
 * Synthetic Obsidian vaults for benchmarks: no permissively licensed real vault
 * has more than ~3k notes (../shared/corpora/README.md), and the targets in
 * issue 4 are stated at 10k and 100k.
 *
 * Deterministic: the same seed and options give the same bytes (paths and
 * contents; not mtimes). Every note is rendered from its own PRNG stream, so a
 * note can be regenerated alone, which is how `[[note#heading]]` links name a
 * heading that really exists in the target.
 *
 * What a vault has (each a knob in {@link SyntheticVaultOptions}):
 * - sizes: log-normal around `medianBytes` (most notes 1–5 KB) plus a long tail
 *   (`tailShare` of notes, log-uniform from 10 KB to `maxBytes`, ~100 KB);
 * - folders nested up to three deep (`notesPerFolder` on average), a daily-notes
 *   folder (`journalShare`), Cyrillic and Chinese folder names;
 * - nested headings (H1 title sometimes, H2, H3, occasionally H4), frontmatter
 *   with tags, aliases, dates (`frontmatterShare`, `aliasShare`), inline #tags;
 * - 2–5 links per note (`linksPerNote`), skewed towards hub notes and neighbours:
 *   `[[Name]]`, `[[Name|shown]]`, `[[Name#Heading]]`, `![[Name]]`, `[t](path.md)`,
 *   `[[Folder/Name]]` for duplicated names, and `danglingShare` unresolved links;
 * - duplicate basenames in different folders (`duplicateShare`);
 * - Russian and Chinese notes (`russianShare`, `chineseShare`, 5% each);
 * - code blocks, tables, task lists, callouts (`codeShare`, `tableShare`);
 * - a planted term (`plantedTerm` in `plantedShare` of notes) so benchmarks can
 *   search for something with a known number of matching notes.
 *
 * CLI: `node --import tsx bench/synthetic-vault.ts --notes 10000 --out /tmp/vg-10k
 *        [--seed 1] [--set russianShare=0.1]...` (refuses paths inside the repo).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { int, mulberry32, normal, pick, subSeed, zipfIndex, type Rng } from './lib/random.js';
import { CODE_LANGS, EN_COMMON, inventWords, RU_COMMON, TOP_FOLDERS, ZH_COMMON } from './lib/synthetic-words.js';

export const GENERATOR_VERSION = 1;
/** Written at the vault root; a dot-file, so Obsidian and vaultgate ignore it. */
export const MANIFEST_NAME = '.synthetic-vault.json';

export interface SyntheticVaultOptions {
  /** Number of Markdown notes. */
  notes: number;
  /** PRNG seed (32-bit). */
  seed: number;
  /** Median note size in bytes of the log-normal body of the distribution. */
  medianBytes: number;
  /** Log-normal sigma: 0.6 puts roughly three notes in four between 1 and 5 KB. */
  sizeSigma: number;
  /** Share of notes in the long tail, log-uniform from 10 KB to `maxBytes`. */
  tailShare: number;
  maxBytes: number;
  /** Inclusive range of links per note (long notes get one more per 20 KB). */
  linksPerNote: [number, number];
  /** Share of links pointing at a note that does not exist. */
  danglingShare: number;
  russianShare: number;
  chineseShare: number;
  /** Share of notes whose basename repeats an earlier note's, in another folder. */
  duplicateShare: number;
  notesPerFolder: number;
  /** Share of notes that are daily notes (`Journal/2023/2023-04-05.md`). */
  journalShare: number;
  frontmatterShare: number;
  /** Share of notes (with frontmatter) that declare aliases. */
  aliasShare: number;
  /** Probability that a section holds a code block / a table. */
  codeShare: number;
  tableShare: number;
  plantedTerm: string;
  plantedShare: number;
  /** Number of invented words in the long tail of the vocabulary. */
  lexiconSize: number;
}

export const DEFAULT_OPTIONS: SyntheticVaultOptions = {
  notes: 1000,
  seed: 1,
  medianBytes: 2500,
  sizeSigma: 0.6,
  tailShare: 0.01,
  maxBytes: 100_000,
  linksPerNote: [2, 5],
  danglingShare: 0.02,
  russianShare: 0.05,
  chineseShare: 0.05,
  duplicateShare: 0.03,
  notesPerFolder: 40,
  journalShare: 0.1,
  frontmatterShare: 0.7,
  aliasShare: 0.2,
  codeShare: 0.08,
  tableShare: 0.05,
  plantedTerm: 'zephyrine',
  plantedShare: 0.005,
  lexiconSize: 20_000,
};

export type Lang = 'en' | 'ru' | 'zh';

export interface PlannedNote {
  index: number;
  folder: string;
  /** Basename without `.md`. */
  name: string;
  lang: Lang;
  journal: boolean;
  /** Index of the earlier note whose basename this one repeats, or null. */
  duplicateOf: number | null;
  planted: boolean;
}

export interface SyntheticVaultPlan {
  options: SyntheticVaultOptions;
  notes: PlannedNote[];
  folders: string[];
  /** How many notes carry each lower-cased basename (for `[[Folder/Name]]` links). */
  nameCounts: Map<string, number>;
  lexicon: string[];
  tags: string[];
}

export interface GeneratedLink {
  raw: string;
  /** Vault path of the target note, or null for an intentionally dangling link. */
  target: string | null;
  /** Heading the link points at (`[[X#H]]`), or null. */
  heading: string | null;
}

export interface RenderedNote {
  path: string;
  text: string;
  links: GeneratedLink[];
  headings: number;
  codeBlocks: number;
  tables: number;
}

interface OutlineHeading {
  level: number;
  text: string;
}

interface Outline {
  targetBytes: number;
  title: boolean;
  headings: OutlineHeading[];
}

// PRNG stream ids: one per concern, so adding a feature to one stream does not
// reshuffle the others.
const STREAM_PLAN = 1;
const STREAM_OUTLINE = 2;
const STREAM_BODY = 3;
const STREAM_LEXICON = 4;

export function resolveOptions(partial: Partial<SyntheticVaultOptions> = {}): SyntheticVaultOptions {
  const o = { ...DEFAULT_OPTIONS, ...partial };
  if (!Number.isSafeInteger(o.notes) || o.notes < 1) throw new Error(`notes must be a positive integer, got ${o.notes}`);
  return o;
}

function titleCase(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/** One word in the note's language: Zipf over common words, else the invented tail. */
function word(rng: Rng, lang: Lang, lexicon: string[]): string {
  const r = rng();
  if (lang === 'ru') return r < 0.88 ? RU_COMMON[zipfIndex(rng, RU_COMMON.length)]! : lexicon[zipfIndex(rng, lexicon.length)]!;
  if (lang === 'zh') return r < 0.92 ? ZH_COMMON[zipfIndex(rng, ZH_COMMON.length)]! : lexicon[zipfIndex(rng, lexicon.length)]!;
  return r < 0.6 ? EN_COMMON[zipfIndex(rng, EN_COMMON.length)]! : lexicon[zipfIndex(rng, lexicon.length)]!;
}

function phrase(rng: Rng, lang: Lang, lexicon: string[], min: number, max: number): string {
  const n = int(rng, min, max);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(word(rng, lang, lexicon));
  if (lang === 'zh') return words.join('');
  return words.map((w, i) => (i === 0 || lang === 'en' ? titleCase(w) : w)).join(' ');
}

function isoDate(dayOffset: number): string {
  return new Date(Date.UTC(2020, 0, 1) + dayOffset * 86_400_000).toISOString().slice(0, 10);
}

/** Decide folders, names, languages and duplicates: everything links need to know up front. */
export function planSyntheticVault(partial: Partial<SyntheticVaultOptions> = {}): SyntheticVaultPlan {
  const options = resolveOptions(partial);
  const rng = mulberry32(subSeed(options.seed, STREAM_PLAN, 0));
  const lexicon = inventWords(mulberry32(subSeed(options.seed, STREAM_LEXICON, 0)), options.lexiconSize);
  const tags = Array.from({ length: 80 }, (_, i) =>
    i % 3 === 0 ? `${pick(rng, EN_COMMON)}/${lexicon[i]}` : i % 3 === 1 ? pick(rng, EN_COMMON) : lexicon[i]!,
  );

  // Folder tree: each new folder hangs off a top folder or an earlier folder, up to three deep.
  const folderCount = Math.max(4, Math.round(options.notes / options.notesPerFolder));
  const folders: string[] = [];
  const folderSet = new Set<string>();
  while (folders.length < folderCount) {
    const parent = folders.length < TOP_FOLDERS.length || rng() < 0.3 ? pick(rng, TOP_FOLDERS) : pick(rng, folders);
    const depth = parent.split('/').length;
    const lang: Lang = parent === 'Работа' ? 'ru' : parent === '学习' ? 'zh' : 'en';
    const f = depth >= 3 ? parent : `${parent}/${phrase(rng, lang, lexicon, 1, 2)}`;
    if (!folderSet.has(f.toLowerCase())) {
      folderSet.add(f.toLowerCase());
      folders.push(f);
    }
  }

  const notes: PlannedNote[] = [];
  const nameCounts = new Map<string, number>();
  // Lower-cased paths taken so far: a duplicate name must land in a folder that lacks it.
  const paths = new Set<string>();
  const journalCount = Math.round(options.notes * options.journalShare);
  // Notes come in contiguous runs per folder, so "a nearby index" means "a note in the same folder".
  let folderIdx = 0;
  let leftInFolder = 0;
  for (let i = 0; i < options.notes; i++) {
    const journal = i < journalCount;
    let folder: string;
    let name: string;
    let lang: Lang = 'en';
    let duplicateOf: number | null = null;
    if (journal) {
      name = isoDate(i);
      folder = `Journal/${name.slice(0, 4)}`;
    } else {
      if (leftInFolder <= 0) {
        folderIdx = zipfIndex(rng, folders.length);
        leftInFolder = Math.max(1, Math.round(options.notesPerFolder * -Math.log(1 - rng())));
      }
      leftInFolder--;
      folder = folders[folderIdx]!;
      const r = rng();
      lang = r < options.russianShare ? 'ru' : r < options.russianShare + options.chineseShare ? 'zh' : 'en';
      const earlier = notes.length > journalCount ? notes[int(rng, journalCount, notes.length - 1)]! : null;
      if (earlier && !paths.has(`${folder}/${earlier.name}`.toLowerCase()) && rng() < options.duplicateShare) {
        name = earlier.name;
        lang = earlier.lang;
        duplicateOf = earlier.index;
      } else {
        name = phrase(rng, lang, lexicon, 2, 4);
        let n = 2;
        const base = name;
        while (nameCounts.has(name.toLowerCase())) name = `${base} ${n++}`;
      }
    }
    nameCounts.set(name.toLowerCase(), (nameCounts.get(name.toLowerCase()) ?? 0) + 1);
    paths.add(`${folder}/${name}`.toLowerCase());
    notes.push({ index: i, folder, name, lang, journal, duplicateOf, planted: rng() < options.plantedShare });
  }
  return { options, notes, folders, nameCounts, lexicon, tags };
}

export function notePath(note: PlannedNote): string {
  return `${note.folder}/${note.name}.md`;
}

/** Size and headings of note i, from its own stream (cheap: no body text). */
export function outlineOf(plan: SyntheticVaultPlan, i: number): Outline {
  const o = plan.options;
  const note = plan.notes[i]!;
  const rng = mulberry32(subSeed(o.seed, STREAM_OUTLINE, i));
  const targetBytes =
    rng() < o.tailShare
      ? Math.round(Math.exp(Math.log(10_000) + rng() * (Math.log(o.maxBytes) - Math.log(10_000))))
      : Math.min(o.maxBytes, Math.max(120, Math.round(o.medianBytes * Math.exp(o.sizeSigma * normal(rng)))));
  const sections = Math.max(0, Math.min(80, Math.round(targetBytes / 700) - 1 + int(rng, 0, 1)));
  const headings: OutlineHeading[] = [];
  let level = 2;
  for (let s = 0; s < sections; s++) {
    // Walk the outline like a writer does: mostly siblings, sometimes one level down or back up.
    const r = rng();
    if (s > 0 && r < 0.3 && level < 4) level++;
    else if (r > 0.75 && level > 2) level--;
    headings.push({ level, text: phrase(rng, note.lang, plan.lexicon, 1, 4) });
  }
  return { targetBytes, title: !note.journal && rng() < 0.5, headings };
}

function pickTarget(rng: Rng, plan: SyntheticVaultPlan, i: number): number {
  const n = plan.notes.length;
  if (n === 1) return i;
  let t: number;
  do {
    const r = rng();
    // Hubs (low indices collect backlinks), neighbours (same folder), or anywhere.
    t = r < 0.4 ? zipfIndex(rng, n) : r < 0.75 ? Math.min(n - 1, Math.max(0, i + int(rng, -25, 25))) : int(rng, 0, n - 1);
  } while (t === i);
  return t;
}

function renderLink(rng: Rng, plan: SyntheticVaultPlan, from: PlannedNote, t: number): GeneratedLink {
  const target = plan.notes[t]!;
  const targetPath = notePath(target);
  const shared = (plan.nameCounts.get(target.name.toLowerCase()) ?? 1) > 1;
  const ref = shared && rng() < 0.6 ? `${target.folder}/${target.name}` : target.name;
  const r = rng();
  if (r < 0.68) return { raw: `[[${ref}]]`, target: targetPath, heading: null };
  if (r < 0.8) return { raw: `[[${ref}|${phrase(rng, from.lang, plan.lexicon, 1, 3)}]]`, target: targetPath, heading: null };
  if (r < 0.92) {
    const hs = outlineOf(plan, t).headings;
    if (hs.length > 0) {
      const h = pick(rng, hs).text;
      return { raw: `[[${ref}#${h}]]`, target: targetPath, heading: h };
    }
    return { raw: `[[${ref}]]`, target: targetPath, heading: null };
  }
  if (r < 0.95) return { raw: `![[${ref}]]`, target: targetPath, heading: null };
  return { raw: `[${phrase(rng, from.lang, plan.lexicon, 1, 3)}](${encodeURI(targetPath)})`, target: targetPath, heading: null };
}

function sentence(rng: Rng, lang: Lang, lexicon: string[]): string {
  const n = lang === 'zh' ? int(rng, 4, 12) : int(rng, 6, 18);
  const words: string[] = [];
  for (let k = 0; k < n; k++) words.push(word(rng, lang, lexicon));
  if (lang === 'zh') return `${words.join('')}。`;
  return `${titleCase(words.join(' '))}.`;
}

/** Render note i: frontmatter, title, sections of paragraphs, lists, code, tables, links. */
export function renderNote(plan: SyntheticVaultPlan, i: number): RenderedNote {
  const o = plan.options;
  const note = plan.notes[i]!;
  const outline = outlineOf(plan, i);
  const rng = mulberry32(subSeed(o.seed, STREAM_BODY, i));
  const { lexicon, tags } = plan;
  const lang = note.lang;
  const sep = lang === 'zh' ? '' : ' ';

  const [minLinks, maxLinks] = o.linksPerNote;
  const linkCount = int(rng, minLinks, maxLinks) + Math.floor(outline.targetBytes / 20_000);
  const links: GeneratedLink[] = [];
  for (let k = 0; k < linkCount; k++) {
    if (rng() < o.danglingShare) links.push({ raw: `[[${phrase(rng, lang, lexicon, 2, 3)} (unwritten)]]`, target: null, heading: null });
    else links.push(renderLink(rng, plan, note, pickTarget(rng, plan, i)));
  }
  const pending = [...links];

  const parts: string[] = [];
  let bytes = 0;
  const emit = (s: string) => {
    parts.push(s);
    bytes += Buffer.byteLength(s) + 2;
  };

  if (rng() < o.frontmatterShare) {
    const fm = ['---'];
    const tagList = Array.from({ length: int(rng, 1, 4) }, () => tags[zipfIndex(rng, tags.length)]!);
    if (rng() < 0.5) fm.push(`tags: [${[...new Set(tagList)].join(', ')}]`);
    else fm.push('tags:', ...[...new Set(tagList)].map((t) => `  - ${t}`));
    if (rng() < o.aliasShare) {
      fm.push('aliases:', ...Array.from({ length: int(rng, 1, 2) }, () => `  - ${phrase(rng, lang, lexicon, 2, 3)}`));
    }
    fm.push(`created: ${isoDate(int(rng, 0, 2000))}`);
    if (rng() < 0.3) fm.push(`status: ${pick(rng, ['active', 'done', 'someday', 'draft'])}`);
    fm.push('---');
    emit(fm.join('\n'));
  }
  if (outline.title) emit(`# ${note.name}`);

  let planted = note.planted;
  const paragraph = () => {
    const words = int(rng, 2, 6);
    const ss: string[] = [];
    for (let k = 0; k < words; k++) ss.push(sentence(rng, lang, lexicon));
    let p = ss.join(sep);
    // Links and tags go mid-text, as people write them, not in a list at the end.
    if (pending.length > 0 && rng() < 0.6) p = `${p}${sep}${pending.shift()!.raw}${sep}${sentence(rng, lang, lexicon)}`;
    if (rng() < 0.1) p += ` #${tags[zipfIndex(rng, tags.length)]}`;
    if (planted && rng() < 0.5) {
      p = `${sentence(rng, lang, lexicon)} ${o.plantedTerm} ${p}`;
      planted = false;
    }
    emit(p);
  };

  let codeBlocks = 0;
  let tables = 0;
  const block = () => {
    const r = rng();
    if (r < o.codeShare) {
      codeBlocks++;
      const langTag = pick(rng, CODE_LANGS);
      const lines = Array.from({ length: int(rng, 3, 14) }, () => {
        const a = pick(rng, lexicon);
        const b = pick(rng, lexicon);
        return langTag === 'python' ? `${a} = ${b}(${int(rng, 0, 99)})` : langTag === 'bash' ? `${a} --${b} ./${pick(rng, lexicon)}` : `const ${a} = ${b}(${int(rng, 0, 99)});`;
      });
      emit(['```' + langTag, ...lines, '```'].join('\n'));
    } else if (r < o.codeShare + o.tableShare) {
      tables++;
      const cols = int(rng, 2, 5);
      const head = Array.from({ length: cols }, () => phrase(rng, lang, lexicon, 1, 2));
      const rows = Array.from({ length: int(rng, 2, 8) }, () =>
        `| ${Array.from({ length: cols }, (_, c) => (c > 0 && rng() < 0.4 ? String(int(rng, 0, 9999)) : word(rng, lang, lexicon))).join(' | ')} |`,
      );
      emit([`| ${head.join(' | ')} |`, `|${' --- |'.repeat(cols)}`, ...rows].join('\n'));
    } else if (r < o.codeShare + o.tableShare + 0.15) {
      const task = rng() < 0.3;
      emit(Array.from({ length: int(rng, 2, 7) }, () => `- ${task ? (rng() < 0.5 ? '[ ] ' : '[x] ') : ''}${sentence(rng, lang, lexicon)}`).join('\n'));
    } else if (r < o.codeShare + o.tableShare + 0.19) {
      emit(`> [!${pick(rng, ['note', 'tip', 'warning', 'quote'])}]\n> ${sentence(rng, lang, lexicon)}`);
    } else {
      paragraph();
    }
  };

  const sectionCount = outline.headings.length + 1;
  const perSection = outline.targetBytes / sectionCount;
  // Preamble, then each heading's section, until each reaches its share of the target size.
  let goal = perSection;
  paragraph();
  while (bytes < goal) block();
  for (const h of outline.headings) {
    emit(`${'#'.repeat(h.level)} ${h.text}`);
    goal += perSection;
    block();
    while (bytes < goal) block();
  }
  if (planted) emit(`${sentence(rng, lang, lexicon)} ${o.plantedTerm}.`);
  if (pending.length > 0) emit(pending.map((l) => `- ${l.raw}`).join('\n'));
  if (rng() < 0.02) parts.push(`${sentence(rng, lang, lexicon)} ^blk${i.toString(36)}`);

  return { path: notePath(note), text: `${parts.join('\n\n')}\n`, links, headings: outline.headings.length + (outline.title ? 1 : 0), codeBlocks, tables };
}

export interface SyntheticVaultSummary {
  generator: 'vaultgate-synthetic';
  version: number;
  options: SyntheticVaultOptions;
  notes: number;
  bytes: number;
  folders: number;
  languages: Record<Lang, number>;
  /** Notes whose basename is shared with at least one other note. */
  duplicateBasenameNotes: number;
  links: number;
  danglingLinks: number;
  headings: number;
  codeBlocks: number;
  tables: number;
  plantedTerm: string;
  plantedNotes: number;
  sizeBytes: { p10: number; p50: number; p90: number; p99: number; max: number };
}

function assertOutsideRepo(target: string): void {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const rel = path.relative(repo, path.resolve(target));
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
    throw new Error(`refusing to generate a vault inside the repository (${target}); use a folder under /tmp`);
  }
}

/**
 * Write a vault into `target` (which must be empty, absent, or an earlier
 * synthetic vault: a folder without our manifest is never wiped).
 */
export function writeSyntheticVault(target: string, partial: Partial<SyntheticVaultOptions> = {}): SyntheticVaultSummary {
  assertOutsideRepo(target);
  const plan = planSyntheticVault(partial);
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
    if (!fs.existsSync(path.join(target, MANIFEST_NAME))) throw new Error(`${target} is not empty and not a synthetic vault`);
    fs.rmSync(target, { recursive: true, force: true });
  }
  fs.mkdirSync(target, { recursive: true });
  const made = new Set<string>();
  const sizes: number[] = [];
  const summary: SyntheticVaultSummary = {
    generator: 'vaultgate-synthetic', version: GENERATOR_VERSION, options: plan.options,
    notes: 0, bytes: 0, folders: 0, languages: { en: 0, ru: 0, zh: 0 }, duplicateBasenameNotes: 0,
    links: 0, danglingLinks: 0, headings: 0, codeBlocks: 0, tables: 0,
    plantedTerm: plan.options.plantedTerm, plantedNotes: 0, sizeBytes: { p10: 0, p50: 0, p90: 0, p99: 0, max: 0 },
  };
  for (let i = 0; i < plan.notes.length; i++) {
    const note = plan.notes[i]!;
    const r = renderNote(plan, i);
    if (!made.has(note.folder)) {
      fs.mkdirSync(path.join(target, note.folder), { recursive: true });
      made.add(note.folder);
    }
    const buf = Buffer.from(r.text);
    fs.writeFileSync(path.join(target, r.path), buf);
    sizes.push(buf.length);
    summary.notes++;
    summary.bytes += buf.length;
    summary.languages[note.lang]++;
    if ((plan.nameCounts.get(note.name.toLowerCase()) ?? 1) > 1) summary.duplicateBasenameNotes++;
    summary.links += r.links.length;
    summary.danglingLinks += r.links.filter((l) => l.target === null).length;
    summary.headings += r.headings;
    summary.codeBlocks += r.codeBlocks;
    summary.tables += r.tables;
    if (r.text.includes(plan.options.plantedTerm)) summary.plantedNotes++;
  }
  summary.folders = made.size;
  sizes.sort((a, b) => a - b);
  const q = (p: number) => sizes[Math.min(sizes.length - 1, Math.floor(p * sizes.length))]!;
  summary.sizeBytes = { p10: q(0.1), p50: q(0.5), p90: q(0.9), p99: q(0.99), max: sizes[sizes.length - 1]! };
  fs.writeFileSync(path.join(target, MANIFEST_NAME), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

/** Reuse `target` if it already holds this exact vault (same generator version and options), else write it. */
export function ensureSyntheticVault(target: string, partial: Partial<SyntheticVaultOptions> = {}): SyntheticVaultSummary {
  const options = resolveOptions(partial);
  try {
    const m = JSON.parse(fs.readFileSync(path.join(target, MANIFEST_NAME), 'utf8')) as SyntheticVaultSummary;
    if (m.version === GENERATOR_VERSION && JSON.stringify(m.options) === JSON.stringify(options)) return m;
  } catch {
    // absent or unreadable manifest: generate
  }
  return writeSyntheticVault(target, options);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      notes: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
    },
  });
  if (!values.out) {
    console.error('usage: node --import tsx bench/synthetic-vault.ts --notes N --out DIR [--seed S] [--set knob=value]...');
    process.exit(2);
  }
  const partial: Record<string, unknown> = { notes: Number(values.notes), seed: Number(values.seed) };
  for (const kv of values.set ?? []) {
    const [k, v] = kv.split('=');
    if (!k || v === undefined || !(k in DEFAULT_OPTIONS)) {
      console.error(`unknown knob ${kv}; knobs: ${Object.keys(DEFAULT_OPTIONS).join(', ')}`);
      process.exit(2);
    }
    partial[k] = k === 'plantedTerm' ? v : k === 'linksPerNote' ? v.split(',').map(Number) : Number(v);
  }
  const started = performance.now();
  const summary = writeSyntheticVault(values.out, partial as Partial<SyntheticVaultOptions>);
  const { options: _o, ...rest } = summary;
  console.log(JSON.stringify({ out: values.out, took_ms: Math.round(performance.now() - started), ...rest }, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
