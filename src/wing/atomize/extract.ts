import { VaultgateError } from '../../errors.js';
import { chatAnswerContent, chatBody } from '../evidence/chat-request.js';
import { linksToText } from '../../markdown/verbatim.js';
import { checkConsent, endpointOf, headersOf, modelFor, postToProvider, resolveProvider, type ConsentGate, type PlanSummary } from '../providers/index.js';
import { chunkText, readChunks } from './chunk.js';
import { EXTRACT_SCHEMA, extractJsonSchema, extractMessages, parseExtractAnswer, type ExtractedEntity } from './extract-schema.js';
import { PROGRESS_SCHEMA, progressFile, readProgress, type ChunkProgress } from './progress.js';
import { regenerateRegistry, type RegistryOutcome } from './registry.js';
import { nowIso, readSource, saveState, writeAtomic, type Work } from './work.js';

type Env = Record<string, string | undefined>;

/** Answers that break the schema are asked again this many times in all, then the chunk is recorded as failed. */
export const EXTRACT_ATTEMPTS = 3;
/** Raw answers kept in a failed chunk's progress file, each cut to this many characters. */
const KEPT_ANSWER_CHARS = 2000;

export interface ExtractOptions {
  provider: string;
  model?: string;
  /** Chunks to ask again even when done. */
  redo: readonly string[];
  gate: ConsentGate;
  root: string;
  env: Env;
}

export interface ExtractResult {
  chunks: number;
  asked: number;
  done: number;
  failed: number;
  skipped: number;
  requests: number;
  entities: number;
  failed_chunks: { chunk: string; errors: string[] }[];
  registry: RegistryOutcome;
  sent: PlanSummary | null;
}

/**
 * `atomize extract --work DIR --provider P`: one chat call per chunk that is
 * not done yet (or failed, or named by --redo), each settled in its own
 * progress file before the next is asked, so a run killed at any point goes on
 * where it stopped. A provider that cannot be reached stops the run (typed
 * error, exit 69) with every finished chunk kept. The consent rule covers the
 * whole run's exact requests before the first is sent (a loopback provider
 * needs none). At the end the registry is rebuilt from every done chunk.
 */
export async function atomizeExtract(work: Work, o: ExtractOptions): Promise<ExtractResult> {
  const source = readSource(work);
  const chunks = readChunks(work);
  const known = new Set(chunks.map((c) => c.id));
  for (const r of o.redo) {
    if (!known.has(r)) throw new VaultgateError('USAGE', `--redo ${JSON.stringify(r)} is not a chunk of this work folder`, { details: { param: 'redo' }, hint: 'Chunk ids are in DIR/chunks.tsv (c0001, c0002, …).' });
  }
  const redo = new Set(o.redo);
  const todo = chunks.filter((c) => redo.has(c.id) || readProgress(work, c)?.status !== 'done');
  const spec = resolveProvider(o.env, o.provider);
  const model = modelFor(spec, 'chat', o.model);
  const schema = { name: 'vaultgate_atomize_extract_v1', provider: extractJsonSchema(), strict: extractJsonSchema() };
  const bodies = todo.map((c) => chatBody(extractMessages(linksToText(chunkText(source, c))), schema, spec, model));
  let sent: PlanSummary | null = null;
  let requests = 0;
  const failedChunks: ExtractResult['failed_chunks'] = [];
  let done = 0;
  if (todo.length > 0) {
    const destination = endpointOf(spec, 'chat');
    const sourceName = work.state.source.vault_path ?? work.state.source.file;
    const consent = checkConsent(
      o.root,
      o.env,
      { purpose: 'atomize', provider: spec.name, kind: spec.kind, destination, model, files: [{ path: sourceName, bytes: bodies.reduce((n, b) => n + b.byteLength, 0) }], requests: bodies, texts: todo.length },
      o.gate,
    );
    sent = consent.summary;
    const headers = headersOf(spec, o.env);
    for (let i = 0; i < todo.length; i++) {
      const c = todo[i]!;
      const errors: string[] = [];
      const answers: string[] = [];
      let entities: ExtractedEntity[] | null = null;
      let attempts = 0;
      while (entities === null && attempts < EXTRACT_ATTEMPTS) {
        attempts++;
        requests++;
        const response = await postToProvider(spec, destination, bodies[i]!, headers, consent);
        const content = chatAnswerContent(spec, response.json);
        if (content === null) {
          errors.push(`attempt ${attempts}: the response has no message content`);
          answers.push(response.text.slice(0, KEPT_ANSWER_CHARS));
          continue;
        }
        const parsed = parseExtractAnswer(content);
        if (parsed.ok) entities = parsed.entities;
        else {
          errors.push(`attempt ${attempts}: ${parsed.errors.join('; ')}`);
          answers.push(content.slice(0, KEPT_ANSWER_CHARS));
        }
      }
      const progress: ChunkProgress = {
        schema: PROGRESS_SCHEMA,
        chunk: c.id,
        chunk_sha256: c.sha256,
        status: entities === null ? 'failed' : 'done',
        attempts,
        provider: spec.name,
        model,
        at: nowIso(),
        ...(entities === null ? { errors, answers } : { entities, ...(errors.length ? { errors } : {}) }),
      };
      writeAtomic(progressFile(work, c.id), JSON.stringify(progress, null, 2) + '\n');
      if (entities === null) failedChunks.push({ chunk: c.id, errors });
      else done++;
    }
  }
  const registry = regenerateRegistry(work, chunks);
  work.state.extract = { provider: spec.name, model, at: nowIso(), requests };
  saveState(work);
  const all = chunks.map((c) => readProgress(work, c));
  return {
    chunks: chunks.length,
    asked: todo.length,
    done: all.filter((p) => p?.status === 'done').length,
    failed: all.filter((p) => p?.status === 'failed').length,
    skipped: chunks.length - todo.length,
    requests,
    entities: registry.rows,
    failed_chunks: failedChunks,
    registry,
    sent,
  };
}

export { EXTRACT_SCHEMA };
