/**
 * Import blind-written questions into eval/questions-blind.json.
 *
 * The questions were written by someone who saw only note bodies (no headings,
 * no front matter, no ranking code), each with the note's path and a verbatim
 * `answer_quote`. The expected section is derived here, deterministically: the
 * section of the note whose text holds the quote (the last heading at or before
 * the quote's line; [] before the first heading). A question whose quote does not
 * occur exactly once in the note is refused and listed, never guessed.
 *
 * The split is fixed by the id alone (the first byte of SHA-256(id): even → dev,
 * odd → holdout), so it cannot be chosen after seeing results.
 *
 * The quote itself is not written out (the shared corpora's text stays out of the
 * repository); its SHA-256 and line are, so the mapping can be checked.
 *
 * A later set written after the ranking had been tuned (`--all-holdout`) goes wholly
 * to the holdout: nothing was ever tuned on it, and nothing may be.
 *
 * Usage: node --import tsx eval/import-blind.ts [--from /work/blind/questions] [--out eval/questions-blind.json] [--all-holdout]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readHeadings } from './lib/headings.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');

interface BlindQuestion {
  id: string;
  vault: string;
  lang: string;
  kind?: string;
  question: string;
  path: string;
  answer_quote: string;
}

const { values: args } = parseArgs({
  options: {
    from: { type: 'string', default: '/work/blind/questions' },
    out: { type: 'string', default: path.join(here, 'questions-blind.json') },
    'all-holdout': { type: 'boolean', default: false },
  },
});

function vaultDir(name: string): string | null {
  const local = path.join(here, 'vaults', name);
  if (fs.existsSync(local)) return local;
  const roots = [process.env.VAULTGATE_CORPORA, path.resolve(repo, '../shared/corpora')].filter(Boolean) as string[];
  for (const r of roots) if (fs.existsSync(path.join(r, name, 'vault'))) return path.join(r, name, 'vault');
  return null;
}

/** Dev or holdout from the id alone. */
export function splitOf(id: string): 'dev' | 'holdout' {
  return crypto.createHash('sha256').update(id).digest()[0]! % 2 === 0 ? 'dev' : 'holdout';
}

const files = fs
  .readdirSync(args.from!)
  .filter((f) => f.endsWith('.json'))
  .sort();
const questions: Record<string, unknown>[] = [];
const refused: { id: string; reason: string }[] = [];
for (const file of files) {
  const body = JSON.parse(fs.readFileSync(path.join(args.from!, file), 'utf8')) as { questions?: BlindQuestion[] } | BlindQuestion[];
  const list = Array.isArray(body) ? body : (body.questions ?? []);
  for (const q of list) {
    const dir = vaultDir(q.vault);
    if (!dir) {
      refused.push({ id: q.id, reason: `vault ${q.vault} not found` });
      continue;
    }
    const file = path.join(dir, q.path);
    if (!fs.existsSync(file)) {
      refused.push({ id: q.id, reason: `note ${q.vault}/${q.path} not found` });
      continue;
    }
    const text = fs.readFileSync(file, 'utf8').normalize('NFC');
    const quote = q.answer_quote.normalize('NFC');
    const at = text.indexOf(quote);
    const again = at < 0 ? -1 : text.indexOf(quote, at + 1);
    if (at < 0 || again >= 0) {
      refused.push({ id: q.id, reason: at < 0 ? 'quote not found in the note' : 'quote occurs more than once in the note' });
      continue;
    }
    const line = text.slice(0, at).split('\n').length;
    const headings = readHeadings(text).filter((h) => h.line <= line);
    const headingPath = headings.length === 0 ? [] : headings[headings.length - 1]!.path;
    questions.push({
      id: q.id,
      corpus: q.vault,
      lang: q.lang,
      kind: q.kind ?? 'plain',
      question: q.question,
      path: q.path,
      heading_path: headingPath,
      split: args['all-holdout'] ? 'holdout' : splitOf(q.id),
      quote_line: line,
      quote_sha256: crypto.createHash('sha256').update(quote).digest('hex'),
    });
  }
}
questions.sort((a, b) => String(a.id).localeCompare(String(b.id)));
const out = {
  schema: 1,
  about:
    'Blind questions (written from note bodies only, by someone who never saw headings or the ranking code), imported by eval/import-blind.ts from ' +
    files.join(', ') +
    '. heading_path is the section holding the answer quote (quote_line, quote_sha256); ' +
    (args['all-holdout']
      ? 'every question is holdout: the set was written after tuning and is only ever reported.'
      : 'split is SHA-256(id)[0] even → dev, odd → holdout. Never tune on the holdout.'),
  refused,
  questions,
};
fs.writeFileSync(args.out!, `${JSON.stringify(out, null, 1)}\n`);
console.log(`${questions.length} questions imported to ${path.relative(repo, args.out!)}; ${refused.length} refused`);
for (const r of refused) console.log(`  refused ${r.id}: ${r.reason}`);
const count = (pick: (q: Record<string, unknown>) => string) =>
  Object.entries(questions.reduce<Record<string, number>>((m, q) => ((m[pick(q)] = (m[pick(q)] ?? 0) + 1), m), {}));
console.log('by split:', JSON.stringify(count((q) => String(q.split))));
console.log('by corpus/lang/split:', JSON.stringify(count((q) => `${q.corpus}/${q.lang}/${q.split}`)));
