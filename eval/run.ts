/**
 * `npm run eval`: retrieval quality of `search` (and `context`) on the shared
 * corpora, from the questions in eval/questions.json.
 *
 * For each corpus: index it into a temporary VAULTGATE_HOME (the corpora are
 * read in place and never written: read commands do not create .vaultgate/),
 * ask every question as the user typed it, and score where the expected note
 * and section rank. Prints recall@1, recall@5 and MRR (note level and section
 * level) per corpus and overall, plus each miss with what ranked above it, and
 * writes eval/results/latest.json (paths and heading paths only, never note text).
 *
 * Engines (`--engine`): `core` calls src/index in-process (the default when it
 * exports withFreshIndex and searchIndex); `cli` runs the CLI in-process through
 * runCli; `process` spawns dist/cli/main.js per question. Context packets always
 * go through the CLI, when the `context` verb exists.
 *
 * `--split dev` asks only the dev questions (what to look at while tuning: the
 * holdout's misses stay unseen); a full run reports dev and holdout rows apart.
 *
 * Usage: npm run eval [-- --engine cli] [-- --corpus openbox-ru] [-- --split dev] [-- --limit 10]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { normalizeHeading, samePath } from './lib/headings.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');

interface Question {
  id: string;
  corpus: string;
  lang: 'en' | 'ru';
  question: string;
  path: string;
  heading_path: string[];
  /** `dev`: tune ranking on it; `holdout`: only report it (an overfitted change shows as a dev gain without a holdout one). */
  split: 'dev' | 'holdout';
}

interface Hit {
  path: string;
  heading_path: string[];
}

interface Engine {
  name: string;
  /** `allSections` lifts best-section-per-note: used only to explain section misses. */
  search(vault: string, home: string, query: string, limit: number, allSections?: boolean): Promise<Hit[]>;
  index(vault: string, home: string): Promise<void>;
}

interface QuestionResult {
  id: string;
  corpus: string;
  lang: string;
  split: string;
  expected: { path: string; heading_path: string[] };
  /** 1-based rank of the expected note among the hits, or null when absent. */
  noteRank: number | null;
  /** 1-based rank of the first hit in the expected section (or a subsection of it), or null. */
  sectionRank: number | null;
  /** Rank of the expected section when every section competes (no one-per-note rule), for diagnosing section misses. */
  sectionRankAllSections?: number | null;
  top: Hit[];
  context?: { noteRank: number | null; sectionRank: number | null; items: number } | { error: string };
}

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string' },
    corpus: { type: 'string', multiple: true },
    split: { type: 'string' },
    limit: { type: 'string', default: '10' },
    'no-context': { type: 'boolean', default: false },
    out: { type: 'string' },
    // the similar-notes part (eval/similar.ts): skip it, or run only it
    'no-similar': { type: 'boolean', default: false },
    'similar-only': { type: 'boolean', default: false },
  },
});
const LIMIT = Number(args.limit);

function corporaRoot(): string | null {
  const c = [process.env.VAULTGATE_CORPORA, path.resolve(repo, '../shared/corpora')].filter(Boolean) as string[];
  return c.find((p) => fs.existsSync(p)) ?? null;
}

const nfc = (s: string) => s.normalize('NFC');
const toHits = (hits: unknown): Hit[] =>
  (Array.isArray(hits) ? hits : []).map((h: { path: string; heading_path?: string[] }) => ({ path: h.path, heading_path: h.heading_path ?? [] }));

/** The read path in-process: open, refresh, search, exactly what `vaultgate search` does minus argv and Node start. */
async function coreEngine(): Promise<Engine | null> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import('../src/index/index.js')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const withFreshIndex = mod.withFreshIndex as
    | (<T>(root: string, env: Record<string, string | undefined>, read: (h: { db: unknown }) => T) => { result: T })
    | undefined;
  const searchIndex = mod.searchIndex as ((db: unknown, q: string, o: { limit: number; allSections?: boolean }) => { hits: unknown[] }) | undefined;
  if (typeof withFreshIndex !== 'function' || typeof searchIndex !== 'function') return null;
  const env = (home: string) => ({ ...process.env, VAULTGATE_HOME: home });
  return {
    name: 'core',
    async index(vault, home) {
      withFreshIndex(vault, env(home), () => null);
    },
    async search(vault, home, query, limit, allSections = false) {
      return toHits(withFreshIndex(vault, env(home), (h) => searchIndex(h.db, query, { limit, allSections })).result.hits);
    },
  };
}

type CliRunner = (vault: string, home: string, argv: string[]) => Promise<{ exitCode: number; json: any; stderr: string }>;

async function inProcessCli(): Promise<CliRunner> {
  const { runCli } = (await import('../src/cli/run-cli.js')) as { runCli: (argv: string[], io: unknown) => Promise<number> };
  return async (vault, home, argv) => {
    let stdout = '';
    let stderr = '';
    const exitCode = await runCli(['--vault', vault, ...argv], {
      stdout: (s: string) => (stdout += s),
      stderr: (s: string) => (stderr += s),
      env: { ...process.env, VAULTGATE_HOME: home, VAULTGATE_VAULT: undefined },
      isTTY: false,
      stderrIsTTY: false,
      cwd: repo,
    });
    return { exitCode, json: safeJson(stdout), stderr };
  };
}

function processCli(): CliRunner {
  const bin = path.join(repo, 'dist/cli/main.js');
  return async (vault, home, argv) => {
    const env: Record<string, string | undefined> = { ...process.env, VAULTGATE_HOME: home };
    delete env.NODE_EXTRA_CA_CERTS;
    delete env.VAULTGATE_VAULT;
    const r = spawnSync(process.execPath, [bin, '--vault', vault, ...argv], { env: env as NodeJS.ProcessEnv, encoding: 'utf8', maxBuffer: 64 << 20 });
    return { exitCode: r.status ?? 1, json: safeJson(r.stdout ?? ''), stderr: r.stderr ?? '' };
  };
}

function safeJson(s: string): any {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

function cliEngine(run: CliRunner, name: string): Engine {
  return {
    name,
    async index(vault, home) {
      const r = await run(vault, home, ['index']);
      if (r.exitCode !== 0) throw new Error(`index failed: ${JSON.stringify(r.json?.error ?? r.stderr.slice(0, 300))}`);
    },
    async search(vault, home, query, limit, allSections = false) {
      const r = await run(vault, home, ['search', query, '--limit', String(limit), ...(allSections ? ['--all-sections'] : [])]);
      if (r.exitCode !== 0) throw new Error(`search failed: ${JSON.stringify(r.json?.error ?? r.stderr.slice(0, 300))}`);
      return toHits(r.json?.hits);
    },
  };
}

/** The expected section, or a subsection of it: a question about a section is answered by its parts too. */
function inSection(hit: Hit, q: Question): boolean {
  return nfc(hit.path) === nfc(q.path) && hit.heading_path.length >= q.heading_path.length && samePath(hit.heading_path.slice(0, q.heading_path.length), q.heading_path);
}

function ranks(hits: Hit[], q: Question): { noteRank: number | null; sectionRank: number | null } {
  const n = hits.findIndex((h) => nfc(h.path) === nfc(q.path));
  const s = hits.findIndex((h) => inSection(h, q));
  return { noteRank: n < 0 ? null : n + 1, sectionRank: s < 0 ? null : s + 1 };
}

interface Metrics {
  n: number;
  note: { r1: number; r5: number; mrr: number };
  section: { r1: number; r5: number; mrr: number };
  context?: { noteRecall: number; sectionRecall: number; n: number };
}

function metrics(rs: QuestionResult[]): Metrics {
  const agg = (pick: (r: QuestionResult) => number | null) => ({
    r1: rs.filter((r) => pick(r) === 1).length / rs.length,
    r5: rs.filter((r) => (pick(r) ?? Infinity) <= 5).length / rs.length,
    mrr: rs.reduce((s, r) => s + (pick(r) ? 1 / pick(r)! : 0), 0) / rs.length,
  });
  const m: Metrics = { n: rs.length, note: agg((r) => r.noteRank), section: agg((r) => r.sectionRank) };
  const ctx = rs.map((r) => r.context).filter((c): c is { noteRank: number | null; sectionRank: number | null; items: number } => !!c && !('error' in c));
  if (ctx.length) m.context = { n: ctx.length, noteRecall: ctx.filter((c) => c.noteRank).length / ctx.length, sectionRecall: ctx.filter((c) => c.sectionRank).length / ctx.length };
  return m;
}

// Warnings printed by the code under test (one per note, sometimes) would bury
// the table; count them and say so once at the end instead.
const warnings = new Map<string, number>();
process.removeAllListeners('warning');
process.on('warning', (w) => warnings.set(w.message, (warnings.get(w.message) ?? 0) + 1));

async function main(): Promise<void> {
  const root = corporaRoot();
  if (!root) {
    console.error('shared corpora not found (../shared/corpora or VAULTGATE_CORPORA); nothing to evaluate');
    process.exit(2);
  }
  const all = (JSON.parse(fs.readFileSync(path.join(here, 'questions.json'), 'utf8')) as { questions: Question[] }).questions;
  const wanted = all.filter((q) => (!args.corpus?.length || args.corpus.includes(q.corpus)) && (!args.split || q.split === args.split));

  const cliRun = args.engine === 'process' ? processCli() : await inProcessCli();
  const core = args.engine === undefined || args.engine === 'core' ? await coreEngine() : null;
  if (args.engine === 'core' && !core) throw new Error('src/index does not export withFreshIndex and searchIndex (yet)');
  const engine = core ?? cliEngine(cliRun, args.engine === 'process' ? 'process' : 'cli');

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-eval-'));
  const hasContext = !args['no-context'] && (await verbExists(cliRun, root, wanted[0]!.corpus, scratch, 'context'));

  const results: QuestionResult[] = [];
  const indexMs: Record<string, number> = {};
  try {
    for (const corpus of [...new Set(wanted.map((q) => q.corpus))]) {
      const vault = path.join(root, corpus, 'vault');
      const home = path.join(scratch, corpus);
      fs.mkdirSync(home);
      const t0 = performance.now();
      await engine.index(vault, home);
      indexMs[corpus] = Math.round(performance.now() - t0);
      for (const q of wanted.filter((x) => x.corpus === corpus)) {
        const hits = await engine.search(vault, home, q.question, LIMIT);
        const r: QuestionResult = { id: q.id, corpus, lang: q.lang, split: q.split, expected: { path: q.path, heading_path: q.heading_path }, ...ranks(hits, q), top: hits.slice(0, 5) };
        if (r.sectionRank === null || r.sectionRank > 1) {
          r.sectionRankAllSections = ranks(await engine.search(vault, home, q.question, 50, true), q).sectionRank;
        }
        if (hasContext) {
          const c = await cliRun(vault, home, ['context', q.question]);
          if (c.exitCode !== 0) r.context = { error: String(c.json?.error?.code ?? `exit ${c.exitCode}`) };
          else {
            const items = toHits(c.json?.evidence);
            r.context = { ...ranks(items, q), items: items.length };
          }
        }
        results.push(r);
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  const corpora = [...new Set(results.map((r) => r.corpus))];
  const perCorpus = Object.fromEntries(corpora.map((c) => [c, metrics(results.filter((r) => r.corpus === c))]));
  const byLang = Object.fromEntries(['en', 'ru'].map((l) => [l, metrics(results.filter((r) => r.lang === l))]));
  const bySplit = Object.fromEntries(['dev', 'holdout'].map((s) => [s, metrics(results.filter((r) => r.split === s))]));
  const overall = metrics(results);
  printTable(perCorpus, { ...byLang, ...bySplit }, overall, indexMs);
  printMisses(results);
  for (const [message, count] of warnings) console.log(`\nprocess warning ×${count} from the code under test: ${message}`);

  let commit: string | null = null;
  let srcDirty: boolean | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    // Figures measured on uncommitted src/ cannot be reproduced from the commit alone: say so.
    srcDirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: repo, encoding: 'utf8' }).trim() !== '';
  } catch {
    // not a git checkout
  }
  const out = {
    schema: 1,
    date: new Date().toISOString(),
    commit,
    src_dirty: srcDirty,
    engine: engine.name,
    context: hasContext ? 'vaultgate context (CLI, in-process unless --engine process)' : 'not measured (no context verb)',
    limit: LIMIT,
    index_ms: indexMs,
    overall,
    by_language: byLang,
    by_split: bySplit,
    per_corpus: perCorpus,
    questions: results,
  };
  // latest.json is the committed record a note can cite: only a full run may replace it.
  const target = args.out ?? (wanted.length === all.length ? path.join(here, 'results/latest.json') : null);
  if (!target) {
    console.log('\npartial run (--corpus or --split): results not written; pass --out FILE to keep them');
    return;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(repo, target)}`);
}

async function verbExists(run: CliRunner, root: string, corpus: string, scratch: string, verb: string): Promise<boolean> {
  const r = await run(path.join(root, corpus, 'vault'), scratch, [verb, '--help']);
  return r.exitCode === 0;
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`.padStart(4);

function printTable(perCorpus: Record<string, Metrics>, groups: Record<string, Metrics>, overall: Metrics, indexMs: Record<string, number>): void {
  const rows: string[][] = [];
  const row = (name: string, m: Metrics, idx?: number) =>
    rows.push([
      name,
      String(m.n),
      pct(m.note.r1), pct(m.note.r5), m.note.mrr.toFixed(3),
      pct(m.section.r1), pct(m.section.r5), m.section.mrr.toFixed(3),
      m.context ? `${pct(m.context.noteRecall)} / ${pct(m.context.sectionRecall)}` : 'n/a',
      idx === undefined ? '' : `${idx}`,
    ]);
  for (const [c, m] of Object.entries(perCorpus)) row(c, m, indexMs[c]);
  for (const [g, m] of Object.entries(groups)) if (m.n) row(`(${g})`, m);
  row('overall', overall);
  const head = ['corpus', 'n', 'note@1', 'note@5', 'note MRR', 'sect@1', 'sect@5', 'sect MRR', 'context note/sect', 'index ms'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
  console.log([line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'));
}

function printMisses(results: QuestionResult[]): void {
  const misses = results.filter((r) => r.noteRank === null || r.noteRank > 1 || r.sectionRank === null || r.sectionRank > 5);
  if (!misses.length) return;
  console.log('\nmisses (expected note not first, or expected section not in the top 5):');
  const fmt = (h: Hit) => `${h.path}${h.heading_path.length ? ` > ${h.heading_path.map(normalizeHeading).join(' > ')}` : ''}`;
  for (const r of misses) {
    const all = r.sectionRankAllSections === undefined ? '' : ` (${r.sectionRankAllSections ?? '>50'} among all sections)`;
    console.log(`- ${r.id} note rank ${r.noteRank ?? '-'}, section rank ${r.sectionRank ?? '-'}${all}: want ${fmt({ path: r.expected.path, heading_path: r.expected.heading_path })}`);
    for (const h of r.top.slice(0, 3)) console.log(`    got ${fmt(h)}`);
  }
}

// ---- similar notes (issue 11): its own module, eval/similar.ts; results in eval/results/similar-latest.json
async function similarPart(): Promise<void> {
  const root = corporaRoot();
  if (!root) return;
  const { runSimilarEval, printSimilarEval } = await import('./similar.js');
  const split = args.split === 'dev' || args.split === 'holdout' ? args.split : undefined;
  const r = await runSimilarEval(root, { split, corpus: args.corpus });
  printSimilarEval(r);
  if (split || args.corpus?.length) return;
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  })();
  const target = path.join(here, 'results/similar-latest.json');
  fs.writeFileSync(target, `${JSON.stringify({ schema: 1, date: new Date().toISOString(), commit, ...r }, null, 2)}\n`);
  console.log(`wrote ${path.relative(repo, target)}`);
}

if (!args['similar-only']) await main();
if (!args['no-similar']) await similarPart();
