/**
 * `node --import tsx eval/context-curve.ts`: what `context`'s `limit` buys
 * (issue 21 §3). For each limit, every question of the eval is asked through
 * `buildContext` in-process (the `context` operation's core) and scored:
 *
 * - **sect**: share of questions whose answering section (or a subsection) is
 *   anywhere in the packet (answering and linked sections: what the model reads);
 * - **note**: likewise for the note;
 * - **items**: mean evidence sections per packet;
 * - **~tokens**: mean size of the packet's `evidence` JSON / 4 (what a model
 *   pays to read it; a rough chars-per-token rule, the same for every limit).
 *
 * Rows: dev (every dev question of every set: what tuning may look at) and
 * holdout (blind3 apart: written after the last tuning, never tuned on).
 *
 * Usage: node --import tsx eval/context-curve.ts [--limits 1,2,3,5,8,10] [--max-linked N] [--index-dir DIR] [--corpus NAME]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { samePath } from './lib/headings.js';
import { withFreshIndex } from '../src/index/index.js';
import { buildContext } from '../src/context/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');

const { values: args } = parseArgs({
  options: {
    limits: { type: 'string', default: '1,2,3,5,8,10' },
    'max-linked': { type: 'string' },
    'index-dir': { type: 'string' },
    corpus: { type: 'string', multiple: true },
  },
});
const LIMITS = args.limits!.split(',').map(Number);
const SETS = { original: 'questions.json', blind: 'questions-blind.json', blind2: 'questions-blind2.json', blind3: 'questions-blind3.json' } as const;

interface Question {
  id: string;
  corpus: string;
  question: string;
  path: string;
  heading_path: string[];
  split: 'dev' | 'holdout';
  set: keyof typeof SETS;
}

const nfc = (s: string) => s.normalize('NFC');

function vaultOf(corpus: string): string | null {
  const local = path.join(here, 'vaults', corpus);
  if (fs.existsSync(local)) return local;
  const roots = [process.env.VAULTGATE_CORPORA, path.resolve(repo, '../shared/corpora'), '/work/shared/corpora'].filter(Boolean) as string[];
  for (const r of roots) if (fs.existsSync(path.join(r, corpus, 'vault'))) return path.join(r, corpus, 'vault');
  return null;
}

const questions: Question[] = [];
for (const [set, file] of Object.entries(SETS)) {
  const p = path.join(here, file);
  if (!fs.existsSync(p)) continue;
  for (const q of (JSON.parse(fs.readFileSync(p, 'utf8')) as { questions: Omit<Question, 'set'>[] }).questions) questions.push({ ...q, set: set as Question['set'] });
}
const wanted = questions.filter((q) => vaultOf(q.corpus) && (!args.corpus?.length || args.corpus.includes(q.corpus)));

interface Row {
  q: Question;
  limit: number;
  sect: boolean;
  note: boolean;
  items: number;
  chars: number;
}
const rows: Row[] = [];
const scratch = args['index-dir'] ? path.resolve(args['index-dir']) : fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-curve-'));
try {
  for (const corpus of [...new Set(wanted.map((q) => q.corpus))]) {
    const vault = vaultOf(corpus)!;
    const env = { ...process.env, VAULTGATE_HOME: path.join(scratch, corpus) };
    fs.mkdirSync(env.VAULTGATE_HOME, { recursive: true });
    withFreshIndex(vault, env, () => null);
    console.error(`indexed ${corpus}`);
    for (const q of wanted.filter((x) => x.corpus === corpus)) {
      for (const limit of LIMITS) {
        let evidence: { path: string; heading_path: string[] }[] = [];
        try {
          const maxLinked = args['max-linked'] === undefined ? undefined : Number(args['max-linked']);
          evidence = buildContext(vault, env, { question: q.question, limit, ...(maxLinked === undefined ? {} : { maxLinked }) }).evidence;
        } catch {
          // a failed packet counts as a miss with nothing read
        }
        const inNote = (h: { path: string }) => nfc(h.path) === nfc(q.path);
        const inSection = (h: { path: string; heading_path: string[] }) => inNote(h) && h.heading_path.length >= q.heading_path.length && samePath(h.heading_path.slice(0, q.heading_path.length), q.heading_path);
        rows.push({ q, limit, sect: evidence.some(inSection), note: evidence.some(inNote), items: evidence.length, chars: JSON.stringify(evidence).length });
      }
    }
  }
} finally {
  if (!args['index-dir']) fs.rmSync(scratch, { recursive: true, force: true });
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const groups: [string, (q: Question) => boolean][] = [
  ['dev (all sets)', (q) => q.split === 'dev'],
  ['holdout blind3', (q) => q.set === 'blind3'],
  ['holdout (all sets)', (q) => q.split === 'holdout'],
];
console.log(`| rows | limit | n | sect | note | items | ~tokens |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const [name, pick] of groups) {
  for (const limit of LIMITS) {
    const rs = rows.filter((r) => r.limit === limit && pick(r.q));
    if (!rs.length) continue;
    const mean = (f: (r: Row) => number) => rs.reduce((s, r) => s + f(r), 0) / rs.length;
    console.log(`| ${name} | ${limit} | ${rs.length} | ${pct(mean((r) => Number(r.sect)))} | ${pct(mean((r) => Number(r.note)))} | ${mean((r) => r.items).toFixed(1)} | ${Math.round(mean((r) => r.chars) / 4)} |`);
  }
}
