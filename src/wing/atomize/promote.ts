import fs from 'node:fs';
import path from 'node:path';
import type { ProposeInput, ProposeResult } from '../../proposals/index.js';
import { draftNotes } from './check.js';
import { readChapters } from './chapters.js';
import { finalPath } from './write.js';
import { files, notReady, nowIso, readSource, saveState, sha256, type Work } from './work.js';

/**
 * `atomize promote --work DIR [--batch N] [--allow-novel]`: the drafts become
 * ordinary proposals of new notes under --into, N notes per proposal, through
 * the same propose path as every other change — so the person reviews them in
 * either inbox, and apply lands them as one journaled transaction each. Each
 * proposal records its provenance (the source, by hash, with its text), and
 * review runs the `verbatim` check on it. Notes already proposed by an earlier
 * run are not proposed again (a run stopped between batches goes on).
 */
export const DEFAULT_BATCH = 50;

export interface PromoteResult {
  proposals: { id: string; state: string; notes: number; blocking: string[] }[];
  notes: number;
  already_proposed: number;
  into: string | null;
  allow_novel: boolean;
}

export type Proposer = (input: ProposeInput) => Promise<ProposeResult>;

export async function atomizePromote(work: Work, opts: { batch: number; allowNovel: boolean; agent?: string; stateOf?: (id: string) => string | null }, proposeFn: Proposer): Promise<PromoteResult> {
  const into = work.state.into;
  const source = readSource(work);
  const w = work.state.write;
  if (!w) throw notReady('there are no drafts to promote', 'Run `vaultgate atomize write --work DIR` first.');
  // the drafts' links were made for their final paths under the folder write saw
  if ((w.into ?? null) !== into) throw notReady(`the drafts were written for ${w.into ?? 'the vault root'}, and --into is now ${into ?? 'the vault root'}`, 'Run `vaultgate atomize write --work DIR` again (then strip), then promote.');
  const narrative = readChapters(work).some((c) => c.narrative);
  if (narrative && work.state.strip?.write_at !== w.at) {
    throw notReady('the drafts still hold lines of the narrative chapters', 'Run `vaultgate atomize strip --work DIR` first.');
  }
  const done = work.state.promote?.proposed ?? {};
  // a note whose proposal was declined is proposed again (after the person fixed the draft, say)
  const notes = draftNotes(work).filter((n) => done[n] === undefined || opts.stateOf?.(done[n]!) === 'declined');
  const src = work.state.source;
  // every note of the run, by final path and hash: links between batches are intended (review's link_target)
  const runNotes: Record<string, string> = {};
  for (const n of draftNotes(work)) runNotes[finalPath(work, n)] = sha256(fs.readFileSync(path.join(files(work.dir).notes, n)));
  const provenance = { kind: 'atomize' as const, source: src.vault_path ?? path.basename(src.file), source_sha256: src.sha256, allow_novel: opts.allowNovel, notes: runNotes, source_text: source };
  const out: PromoteResult['proposals'] = [];
  const total = Math.ceil(notes.length / opts.batch);
  for (let b = 0; b < total; b++) {
    const batch = notes.slice(b * opts.batch, (b + 1) * opts.batch);
    const changes = batch.map((n) => ({ action: 'write' as const, path: finalPath(work, n), content: fs.readFileSync(path.join(files(work.dir).notes, n), 'utf8'), base: null }));
    const r = await proposeFn({
        title: `atomize ${provenance.source}: ${batch.length} notes into ${into ?? 'the vault root'}${total > 1 ? ` (part ${b + 1} of ${total})` : ''}`,
        summary: `Atomic notes cut from ${provenance.source} (sha256 ${src.sha256}) by \`vaultgate atomize\`; every sentence is checked word for word against the source (review check \`verbatim\`).`,
        agent: opts.agent ?? 'atomize',
        changes,
        provenance,
      });
    for (const n of batch) done[n] = r.proposal.id;
    work.state.promote = { proposals: [...(work.state.promote?.proposals ?? []), r.proposal.id], proposed: done, allow_novel: opts.allowNovel, at: nowIso() };
    saveState(work);
    out.push({ id: r.proposal.id, state: r.proposal.state, notes: batch.length, blocking: [...new Set(r.review.checks.filter((c) => !c.ok && c.severity === 'block').map((c) => c.name))] });
  }
  return { proposals: out, notes: notes.length, already_proposed: Object.keys(done).length - out.reduce((n, p) => n + p.notes, 0), into, allow_novel: opts.allowNovel };
}
