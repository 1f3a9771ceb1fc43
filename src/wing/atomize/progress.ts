/**
 * One file per chunk (`DIR/progress/<chunk>.json`): what extract settled for it.
 * Its own module because the registry, write and status read it as extract
 * writes it (in extract.ts it made extract ⇄ registry a cycle).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Chunk } from './chunk.js';
import type { ExtractedEntity } from './extract-schema.js';
import { files, type Work } from './work.js';

export const PROGRESS_SCHEMA = 'vaultgate.atomize.progress.v1';

/** One chunk's progress file (`DIR/progress/<chunk>.json`), written atomically when the chunk is settled. */
export interface ChunkProgress {
  schema: typeof PROGRESS_SCHEMA;
  chunk: string;
  /** The chunk text's sha256 when it was asked: a progress file for other text is stale. */
  chunk_sha256: string;
  status: 'done' | 'failed';
  attempts: number;
  provider: string;
  model: string;
  at: string;
  entities?: ExtractedEntity[];
  /** Why each attempt was refused (failed chunks). */
  errors?: string[];
  answers?: string[];
}

export function progressFile(work: Work, chunk: string): string {
  return path.join(files(work.dir).progress, `${chunk}.json`);
}

export function readProgress(work: Work, chunk: Chunk): ChunkProgress | null {
  try {
    const p = JSON.parse(fs.readFileSync(progressFile(work, chunk.id), 'utf8')) as ChunkProgress;
    if (p.schema !== PROGRESS_SCHEMA || p.chunk_sha256 !== chunk.sha256) return null;
    return p;
  } catch {
    return null;
  }
}

