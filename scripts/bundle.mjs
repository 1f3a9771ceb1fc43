#!/usr/bin/env node
/**
 * Bundle the CLI after tsc: every agent call is a new process, and loading ~60
 * ES modules one by one cost ~60 ms before any work. esbuild puts the read path
 * (CLI, ops, session, index, context) into one file and everything reached by a
 * dynamic import into chunks beside it, loaded only by the verbs that need them.
 *
 * - `dist/cli/main.js` replaces tsc's output of the same name; the rest of dist/
 *   stays tsc's (tests and the library import it).
 * - The parse worker is its own entry, next to the chunks, because parse-pool
 *   finds it at `./parse-worker.js` beside its own module.
 * - Not bundled: better-sqlite3 (a native addon), and packages loaded on first
 *   use through `createRequire` (zod, yaml, lezer: src/lazy-require.ts), or only
 *   by the terminal inbox (ink, react); they resolve from node_modules at run time.
 * - `main.ts` itself is tiny: it asks a running daemon for the vault first
 *   (src/cli/daemon/client.ts) and imports the CLI (a chunk) only when none answers.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await build({
  absWorkingDir: repo,
  entryPoints: { main: 'src/cli/main.ts', 'parse-worker': 'src/index/parse-worker.ts' },
  outdir: 'dist/cli',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  external: ['better-sqlite3', 'zod', 'yaml', '@lezer/*', 'ink', 'react', 'react/*'],
  sourcemap: 'linked',
  logLevel: 'warning',
  // ESM output that still lets bundled CommonJS packages call require().
  // One id per build: a daemon answers only CLI processes of its own build (src/cli/version.ts).
  define: { __VAULTGATE_BUILD__: JSON.stringify(crypto.randomUUID()) },
  banner: { js: "import { createRequire as __vgCreateRequire } from 'node:module'; const require = __vgCreateRequire(import.meta.url);" },
});
