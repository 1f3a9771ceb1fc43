/**
 * atomize (issue 24): cut a book into atomic, linked notes with a chat model —
 * resumable, extractive, and reviewed like any other change.
 *
 *   init SOURCE --work DIR   record the source's sha256, cut chapters, mark narrative ones   init.ts, chapters.ts
 *   chunk                    chunks inside chapters, never inside a table/list/code block     chunk.ts
 *   extract --provider P     one chat call per chunk (plain text, strict schema
 *                            vaultgate.atomize.extract.v1), a progress file per chunk,
 *                            bounded retries, failed chunks asked again next run              extract.ts, extract-schema.ts
 *   (registry.tsv)           entities merged by name and alias; a person may edit it          registry.ts
 *   tidy                     the registry's problems, each naming its row                     registry.ts
 *   write                    one draft per entity, sentences in source order, links from
 *                            the registry that resolve from the note's final path            write.ts, links.ts
 *   strip                    narrative lines out of the drafts; a map of content instead      strip.ts, narrative.ts
 *   check                    every sentence not word for word in the source                  check.ts (markdown/verbatim.ts)
 *   promote                  the drafts as ordinary proposals (review check `verbatim`)       promote.ts
 *   status                   each step: done, pending, failed                                 status.ts
 *
 * Everything lives in a work folder outside the vault (work.ts: every file
 * replaced atomically) until promote; the vault is touched only by the
 * proposals, through the same propose → review → apply path as every change.
 * Every step first checks the source is the one init recorded
 * (ATOMIZE_SOURCE_CHANGED, exit 75). The faces (src/ops/atomize-ops.ts) only
 * call these functions.
 */
export { atomizeInit, type InitResult } from './init.js';
export { atomizeChunk, DEFAULT_MAX_CHARS, type ChunkResult } from './chunk.js';
export { atomizeExtract, EXTRACT_ATTEMPTS, type ExtractResult } from './extract.js';
export { EXTRACT_SCHEMA, parseExtractAnswer } from './extract-schema.js';
export { atomizeTidy, type TidyResult } from './registry.js';
export { atomizeWrite, type WriteResult } from './write.js';
export { atomizeStrip, type StripResult } from './strip.js';
export { atomizeCheck, type CheckResult } from './check.js';
export { atomizePromote, DEFAULT_BATCH, type PromoteResult } from './promote.js';
export { atomizeStatus, type StatusResult } from './status.js';
export { openWork, type Work } from './work.js';
