/**
 * `npm run bench -- move`: a link-preserving move of a note with 500 backlinks
 * (issue #12 §3), in the 10k-note synthetic vault and in a copy of the largest
 * corpus (by notes: vaultofknowledge).
 *
 * Setup (not timed): a note with a name no other file has and no backlinks is
 * chosen, and `See also [[Name]].` appended to the first 500 other notes (by
 * path), so it has exactly 500 backlinks from 500 notes; the vault is indexed.
 * Then, alternating, the note is moved into another folder under a new name
 * and back — each move rewrites all 500 links (the bare name changes) — timed
 * in-process, through the real engine:
 * - propose: index refresh, finding and rewriting the links (the rewriter),
 *   storing the proposal, and its review (link_stability included);
 * - review: a second review on its own (what a person re-runs);
 * - apply: review again under the vault lock, then the transaction of 501
 *   files (journal, backups, temp + fsync + rename per file, verify);
 * - refresh after: the index taking in the 502 changed paths (what the next
 *   read pays).
 * Reported: medians over the reps, files touched, links rewritten. Never
 * asserted (the machine is shared).
 *
 * Results: a table on stdout and bench/results/move.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { apply, propose, review } from '../src/proposals/index.js';
import { VaultSession } from '../src/session/index.js';
import { sha256Hex } from '../src/vault/index.js';
import { ensureSyntheticVault } from './synthetic-vault.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPS = Number(process.env.VAULTGATE_BENCH_REPS ?? 4);
const BACKLINKS = 500;
const BENCH_DIR = process.env.VAULTGATE_BENCH_DIR ?? path.join(os.tmpdir(), 'vaultgate-bench');
const CORPUS = path.resolve(here, '../../shared/corpora/vaultofknowledge/vault');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function markdownFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...markdownFiles(root, r));
    else if (e.isFile() && e.name.endsWith('.md')) out.push(r);
  }
  return out.sort();
}

interface Row {
  vault: string;
  /** Review of a one-note create named like the most-linked name, and how many links it would change. */
  create_review_ms: number;
  create_name_links: number;
  notes: number;
  moved: string;
  backlinks: number;
  files_touched: number;
  links_rewritten: number;
  propose_ms: number;
  review_ms: number;
  apply_ms: number;
  refresh_ms: number;
  index_ms: number;
}

async function benchVault(label: string, root: string): Promise<Row> {
  const notes = markdownFiles(root);
  const byName = new Map<string, number>();
  for (const p of notes) byName.set(path.basename(p).toLowerCase(), (byName.get(path.basename(p).toLowerCase()) ?? 0) + 1);
  const home = path.join(path.dirname(root), 'home');
  fs.rmSync(home, { recursive: true, force: true });
  const session = VaultSession.open({ vault: root, env: { VAULTGATE_HOME: home }, cwd: root });
  try {
    const t0 = performance.now();
    const linked = new Set(session.read((h) => h.db.prepare(`SELECT DISTINCT target FROM links WHERE target IS NOT NULL`).pluck().all() as string[]).result);
    const index_ms = performance.now() - t0;
    // a note nobody links to, whose name is unique and plain enough to be linked bare
    const target = notes.find((p) => !linked.has(p) && byName.get(path.basename(p).toLowerCase()) === 1 && /^[\p{L}\p{N} _-]+\.md$/u.test(path.basename(p)))!;
    const name = path.basename(target, '.md');
    let added = 0;
    for (const p of notes) {
      if (added === BACKLINKS) break;
      if (p === target) continue;
      fs.appendFileSync(path.join(root, p), `\n\nSee also [[${name}]].\n`);
      added++;
    }
    session.read(() => null); // index the 500 new links before anything is timed
    const places = [target, `Moved by the bench/${name} (moved).md`];
    const propose_ms: number[] = [];
    const review_ms: number[] = [];
    const apply_ms: number[] = [];
    const refresh_ms: number[] = [];
    let files = 0;
    let rewritten = 0;
    for (let rep = 0; rep < REPS; rep++) {
      const [from, to] = rep % 2 === 0 ? [places[0]!, places[1]!] : [places[1]!, places[0]!];
      const base = sha256Hex(fs.readFileSync(path.join(root, from)));
      let t = performance.now();
      const p = await propose(session, { changes: [{ action: 'move', path: from, to, base }], agent: 'bench' }, 'bench');
      propose_ms.push(performance.now() - t);
      if (p.proposal.state !== 'pending') throw new Error(`${label}: the move is ${p.proposal.state}: ${JSON.stringify(p.review.checks.filter((c) => !c.ok))}`);
      t = performance.now();
      const r = await review(session, p.proposal.id, 'bench');
      review_ms.push(performance.now() - t);
      t = performance.now();
      const a = await apply(session, p.proposal.id, r.review_hash!, 'operator');
      apply_ms.push(performance.now() - t);
      // the index notices the 502 changed files on its next refresh: timed apart, not in the next propose
      t = performance.now();
      session.read(() => null);
      refresh_ms.push(performance.now() - t);
      files = a.changed_paths.length;
      rewritten = p.review.files.reduce((n, f) => n + f.links_rewritten.length, 0);
    }
    // a plain one-note create, for what the link-stability check costs a review that moves nothing:
    // the new note takes the name of the note with most backlinks (every link to that name is re-resolved)
    const hub = session.read((h) => h.db.prepare(`SELECT l.name_key FROM links l WHERE l.name_key != '' GROUP BY l.name_key ORDER BY count(*) DESC LIMIT 1`).pluck().get() as string).result;
    const c = await propose(session, { changes: [{ action: 'write', path: `Bench/${hub}.md`, content: '# new\n', base: null }], agent: 'bench' }, 'bench');
    const create_review_ms: number[] = [];
    let relinked = 0;
    for (let i = 0; i < REPS; i++) {
      const t = performance.now();
      const r = await review(session, c.proposal.id, 'bench');
      create_review_ms.push(performance.now() - t);
      relinked = r.link_changes.length;
    }
    return {
      vault: label,
      create_review_ms: Math.round(median(create_review_ms)),
      create_name_links: relinked,
      notes: notes.length,
      moved: `${places[0]} → ${places[1]}`,
      backlinks: added,
      files_touched: files,
      links_rewritten: rewritten,
      propose_ms: Math.round(median(propose_ms)),
      review_ms: Math.round(median(review_ms)),
      apply_ms: Math.round(median(apply_ms)),
      refresh_ms: Math.round(median(refresh_ms)),
      index_ms: Math.round(index_ms),
    };
  } finally {
    session.close();
  }
}

async function main() {
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  const rows: Row[] = [];
  // the synthetic vault is generated once and kept; each run works on a fresh copy
  const base10k = path.join(BENCH_DIR, 'vault-10000');
  ensureSyntheticVault(base10k, { notes: 10_000, seed: 1 });
  const work = fs.mkdtempSync(path.join(BENCH_DIR, 'move-'));
  try {
    const synth = path.join(work, 'synthetic', 'vault');
    fs.cpSync(base10k, synth, { recursive: true });
    rows.push(await benchVault('synthetic 10k', synth));
    if (fs.existsSync(CORPUS)) {
      const corpus = path.join(work, 'corpus', 'vault');
      fs.cpSync(CORPUS, corpus, { recursive: true, filter: (src) => !path.basename(src).startsWith('.') || src === CORPUS || path.basename(src) === '.obsidian' });
      rows.push(await benchVault('vaultofknowledge', corpus));
    } else console.error(`corpus absent (${CORPUS}): skipped`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`move of a note with ${BACKLINKS} backlinks, median of ${REPS} moves (alternating there and back), in-process`);
  console.log('vault             notes  files touched  links rewritten  propose ms  review ms  apply ms  refresh after ms  (cold index ms)');
  for (const r of rows) {
    console.log(
      `${r.vault.padEnd(16)} ${String(r.notes).padStart(6)}  ${String(r.files_touched).padStart(13)}  ${String(r.links_rewritten).padStart(15)}  ${String(r.propose_ms).padStart(10)}  ${String(r.review_ms).padStart(9)}  ${String(r.apply_ms).padStart(8)}  ${String(r.refresh_ms).padStart(16)}  ${String(r.index_ms).padStart(15)}`,
    );
  }
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  for (const r of rows) console.log(`${r.vault}: review of a one-note create named like the most-linked name: ${r.create_review_ms} ms (${r.create_name_links} existing links would change)`);
  fs.writeFileSync(path.join(here, 'results', 'move.json'), `${JSON.stringify({ reps: REPS, backlinks: BACKLINKS, rows }, null, 2)}\n`);
}

await main();
