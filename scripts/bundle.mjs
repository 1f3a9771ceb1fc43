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
 *   by the terminal inbox (ink, react) or the MCP server (the MCP SDK, which
 *   imports zod itself: bundling it would load a second zod); they resolve from
 *   node_modules at run time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Chunk names carry content hashes: drop the previous build's, or they pile up.
const out = path.join(repo, 'dist/cli');
for (const name of fs.existsSync(out) ? fs.readdirSync(out) : []) if (/^chunk-.*\.js(\.map)?$/.test(name)) fs.rmSync(path.join(out, name));
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
  external: ['better-sqlite3', 'zod', 'yaml', '@lezer/*', 'ink', 'react', 'react/*', '@modelcontextprotocol/sdk'],
  sourcemap: 'linked',
  logLevel: 'warning',
  // ESM output that still lets bundled CommonJS packages call require().
  banner: { js: "import { createRequire as __vgCreateRequire } from 'node:module'; const require = __vgCreateRequire(import.meta.url);" },
});
