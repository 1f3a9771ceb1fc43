import fs from 'node:fs';
import { readChapters } from './chapters.js';
import { atomizeCheck, draftNotes } from './check.js';
import { readChunks, type Chunk } from './chunk.js';
import { readProgress } from './progress.js';
import { readRegistry } from './registry.js';
import { files, type Work } from './work.js';

/**
 * `atomize status --work DIR`: each step's state — `done`, `pending` (not run,
 * or run before a step it depends on ran again) or `failed` — with its counts.
 * Reads only; the source must still be the one init recorded (as for every step).
 */
export type StepState = 'done' | 'pending' | 'failed';

export interface StepStatus {
  step: 'init' | 'chunk' | 'extract' | 'tidy' | 'write' | 'strip' | 'check' | 'promote';
  status: StepState;
  done: number;
  pending: number;
  failed: number;
  detail: string;
}

export interface StatusResult {
  work: string;
  source: { file: string; vault_path: string | null; sha256: string };
  into: string | null;
  steps: StepStatus[];
}

const step = (s: StepStatus['step'], done: number, pending: number, failed: number, detail: string): StepStatus => ({
  step: s,
  status: failed > 0 ? 'failed' : pending > 0 || done === 0 ? 'pending' : 'done',
  done,
  pending,
  failed,
  detail,
});

export function atomizeStatus(work: Work): StatusResult {
  const st = work.state;
  const chapters = readChapters(work);
  const steps: StepStatus[] = [step('init', chapters.length, 0, 0, `${chapters.length} chapters, ${chapters.filter((c) => c.narrative).length} narrative`)];
  let chunks: Chunk[] | null = null;
  try {
    chunks = readChunks(work);
  } catch {
    chunks = null;
  }
  steps.push(chunks ? step('chunk', chunks.length, 0, 0, `${chunks.length} chunks (max ${st.chunk?.max_chars ?? '?'} chars)`) : step('chunk', 0, 1, 0, 'not cut since init'));
  if (chunks) {
    let done = 0;
    let failed = 0;
    for (const c of chunks) {
      const p = readProgress(work, c);
      if (p?.status === 'done') done++;
      else if (p?.status === 'failed') failed++;
    }
    const pending = chunks.length - done - failed;
    steps.push(step('extract', done, pending, failed, `${done} done, ${pending} pending, ${failed} failed of ${chunks.length} chunks${st.extract ? ` (${st.extract.provider}/${st.extract.model})` : ''}`));
  } else steps.push(step('extract', 0, 1, 0, 'needs chunks'));
  let registry: { rows: number; sha256: string } | null = null;
  try {
    const r = readRegistry(work);
    registry = { rows: r.rows.length, sha256: r.sha256 };
  } catch (e) {
    steps.push(step('tidy', 0, 0, fs.existsSync(files(work.dir).registry) ? 1 : 0, fs.existsSync(files(work.dir).registry) ? (e as Error).message : 'no registry yet'));
  }
  if (registry) {
    const tidied = st.tidy?.registry_sha256 === registry.sha256;
    steps.push(step('tidy', tidied ? registry.rows : 0, tidied ? 0 : 1, 0, `${registry.rows} registry rows${tidied ? ', validated' : ', not validated since the last change'}`));
  }
  const wrote = st.write && registry && st.write.registry_sha256 === registry.sha256 && (st.write.into ?? null) === st.into;
  steps.push(wrote ? step('write', st.write!.notes.length, 0, 0, `${st.write!.notes.length} drafts, ${st.write!.links_added} links added`) : step('write', 0, 1, 0, st.write ? 'the registry or --into changed since the drafts were written' : 'not run'));
  const narrative = chapters.filter((c) => c.narrative).length;
  const stripped = wrote && st.strip?.write_at === st.write!.at;
  steps.push(
    narrative === 0 && wrote
      ? step('strip', 1, 0, 0, 'no narrative chapters')
      : stripped
        ? step('strip', st.write!.notes.length, 0, 0, `${st.strip!.lines_removed} narrative lines removed, map ${st.strip!.map}`)
        : step('strip', 0, 1, 0, 'not run since write'),
  );
  if (draftNotes(work).length > 0) {
    const c = atomizeCheck(work);
    steps.push({ step: 'check', status: c.novel.length ? 'failed' : 'done', done: c.verbatim, pending: 0, failed: c.novel.length, detail: `${c.notes} notes, ${c.sentences} sentences, ${c.novel.length} novel` });
  } else steps.push(step('check', 0, 1, 0, 'no drafts'));
  const proposed = Object.keys(st.promote?.proposed ?? {}).length;
  const toPropose = draftNotes(work).length;
  steps.push(step('promote', proposed, Math.max(0, toPropose - proposed), 0, st.promote ? `${proposed} notes in proposals ${st.promote.proposals.join(', ')}` : 'not run'));
  return { work: work.dir, source: { file: st.source.file, vault_path: st.source.vault_path, sha256: st.source.sha256 }, into: st.into, steps };
}
