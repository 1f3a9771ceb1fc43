#!/usr/bin/env node
/**
 * Bundle the CLI after tsc: every agent call is a new process, and loading ~60
 * ES modules one by one cost ~60 ms before any work. esbuild puts the read path
 * (CLI, ops, session, index, context) into one file and everything reached by a
 * dynamic import into chunks beside it, loaded only by the verbs that need them.
 *
 * Three outputs in dist/cli/, all from one build id (src/version.ts):
 * - `cli.js` + chunks: the CLI itself (`runCli`), split; with the parse and
 *   read workers as entries of their own, because parse-pool and read-pool find
 *   them at `./parse-worker.js` and `./read-worker.js` beside their own module.
 * - `main.cjs` (the package's bin) and `main.js` (the same as an ES module,
 *   replacing tsc's output of that name): src/cli/main.ts in one file. It asks
 *   the vault's daemon first (src/cli/daemon/client.ts) and imports `./cli.js`
 *   only when none answers. The CommonJS form skips Node's ES module loader
 *   (~10-20 ms of every start) on a forwarded read.
 * - The rest of dist/ stays tsc's (tests, the bench and the library import it).
 * - better-sqlite3's JavaScript is bundled, its native addon is not (see
 *   sqliteAddon below).
 * - Not bundled: packages loaded on first
 *   use through `createRequire` (zod, yaml, lezer: src/lazy-require.ts), or only
 *   by the terminal inbox (ink, react) or the MCP server (the MCP SDK, which
 *   imports zod itself: bundling it would load a second zod); they resolve from
 *   node_modules at run time.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Chunk names carry content hashes: drop the previous build's, or they pile up.
const out = path.join(repo, 'dist/cli');
for (const name of fs.existsSync(out) ? fs.readdirSync(out) : []) if (/^chunk-.*\.js(\.map)?$/.test(name)) fs.rmSync(path.join(out, name));
/**
 * tsc never deletes what it emitted for a source that has since moved or gone,
 * so a stale dist/providers once kept a test passing here that a clean clone
 * skipped. Drop every emitted file of dist/ whose source is no longer in src/
 * (the bundle's own outputs below excepted), and the folders left empty.
 */
const BUNDLE_OUTPUTS = /^dist\/cli\/(cli|read|query|parse-worker|read-worker|local-embed-worker|chunk-[^/]*)\.(c?js)(\.map)?$/;
function pruneOrphans(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      pruneOrphans(p);
      if (fs.readdirSync(p).length === 0) fs.rmdirSync(p);
      continue;
    }
    const rel = path.relative(repo, p).split(path.sep).join('/');
    const emitted = /^dist\/(.*?)(\.d\.ts|\.c?js)(\.map)?$/.exec(rel);
    if (!emitted || BUNDLE_OUTPUTS.test(rel)) continue;
    const source = path.join(repo, 'src', emitted[1]);
    if (!fs.existsSync(`${source}.ts`) && !fs.existsSync(`${source}.tsx`)) fs.rmSync(p);
  }
}
pruneOrphans(path.join(repo, 'dist'));
// One id per build: a daemon answers only CLI processes of its own build (src/version.ts).
const define = { __VAULTGATE_BUILD__: JSON.stringify(crypto.randomUUID()) };
const common = {
  absWorkingDir: repo,
  outdir: 'dist/cli',
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3/package.json', 'zod', 'yaml', '@lezer/*', 'turndown', 'ink', 'react', 'react/*', '@modelcontextprotocol/sdk'],
  sourcemap: 'linked',
  logLevel: 'warning',
};
// ESM output that still lets bundled CommonJS packages call require().
const esmBanner = "import { createRequire as __vgCreateRequire } from 'node:module'; const require = __vgCreateRequire(import.meta.url);";

/**
 * Node's own modules that most runs never use but whose static imports load
 * them at every start: node:crypto (its ~15 internal modules, 2–5 ms; a read
 * from an up-to-date index hashes nothing), and node:child_process, which
 * commander requires at load time (3–5 ms) for executable subcommands that
 * vaultgate does not have. Each is replaced by a stand-in with the same export
 * names (taken from this Node at build time) whose getters load the real module
 * on first use, so every caller's code stays as written.
 */
const LAZY_BUILTINS = {
  'node:crypto': () => true,
  'node:child_process': (importer) => /[\\/]node_modules[\\/]commander[\\/]/.test(importer),
};
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:(crypto|child_process)$/ }, (args) => {
      // The stand-in's own require is the real module.
      if (args.namespace === 'vg-lazy') return { path: args.path, external: true };
      return LAZY_BUILTINS[args.path](args.importer) ? { path: args.path, namespace: 'vg-lazy' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'vg-lazy' }, async (args) => {
      const names = Object.keys(await import(args.path)).filter((n) => n !== 'default');
      return {
        contents: `let m; const load = () => (m ??= require(${JSON.stringify(args.path)}));
for (const name of ${JSON.stringify(names)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
        loader: 'js',
      };
    });
  },
};

/**
 * better-sqlite3's JavaScript goes into the bundles: as a package its 15 small
 * files cost ~8 ms of every read to resolve and compile (no code cache reaches
 * them); in read.cjs they come from the cache with the rest. Its native addon
 * stays where npm put it. The package finds the addon with `bindings`, which
 * works out the package's folder from its caller's file — inside a bundle that
 * would be dist/cli. This stand-in loads the addon from the real package's
 * folder (build/Release, where npm's install puts it), and asks `bindings`
 * with that folder for any other layout (a Debug build, node-pre-gyp).
 */
const sqliteAddon = {
  name: 'sqlite-addon',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, (args) => {
      if (args.namespace === 'vg-sqlite-addon') return { path: 'bindings', external: true };
      return /[\\/]node_modules[\\/]better-sqlite3[\\/]/.test(args.importer) ? { path: 'bindings', namespace: 'vg-sqlite-addon' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'vg-sqlite-addon' }, () => ({
      contents: `module.exports = function sqliteAddon(name) {
  const root = require('node:path').dirname(require.resolve('better-sqlite3/package.json'));
  try {
    return require(root + '/build/Release/' + name);
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    return require('bindings')({ bindings: name, module_root: root });
  }
};`,
      loader: 'js',
    }));
  },
};

await build({
  ...common,
  entryPoints: {
    cli: 'src/cli/run-cli.ts',
    'parse-worker': 'src/index/parse-worker.ts',
    'read-worker': 'src/index/read-worker.ts',
    'local-embed-worker': 'src/wing/providers/local-embed-worker.ts',
  },
  plugins: [lazyBuiltins, sqliteAddon],
  splitting: true,
  format: 'esm',
  chunkNames: 'chunk-[hash]',
  define,
  banner: { js: esmBanner },
});

/**
 * In CommonJS output, esbuild turns each module's `import fs from 'node:fs'`
 * into its own `__toESM(require('node:fs'))`, which copies every export of the
 * module onto a new object: 97 such copies of node:fs and node:path in
 * read.cjs, ~4 ms of every start. Here each of the two is one ES module of the
 * bundle that requires the real one once and exports its plain values (names
 * taken from this Node at build time); importers reference those bindings
 * directly. An accessor (fs.promises, fs.ReadStream…) is left out: reading it
 * at start would load what it loads lazily; the default export still has it,
 * and a named import of it fails the build (`import-is-undefined` is an error
 * in these builds).
 */
const SHARED_BUILTINS = new Set(['node:fs', 'node:path']);
const sharedBuiltins = {
  name: 'shared-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:(fs|path)$/ }, (args) => {
      if (args.namespace === 'vg-shared') return { path: args.path, external: true };
      return SHARED_BUILTINS.has(args.path) ? { path: args.path, namespace: 'vg-shared' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'vg-shared' }, async (args) => {
      const real = (await import(args.path)).default;
      const names = Object.keys(real).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && 'value' in Object.getOwnPropertyDescriptor(real, n));
      return {
        contents: `const m = require(${JSON.stringify(args.path)});\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`,
        loader: 'js',
      };
    });
  },
};
const strictImports = { logOverride: { 'import-is-undefined': 'error' } };

/**
 * `read.cjs`: the same CLI as one CommonJS file, which main.ts runs for the read
 * verbs through V8's code cache (src/cli/code-cache.ts): Node 20 caches no
 * compiled code for ES modules. Nothing is split out (CommonJS output cannot
 * be); modules behind a dynamic import still run only when first imported.
 */
/** A CommonJS build has no import.meta: its URL comes from __filename. */
const commonJs = {
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  define: { ...define, 'import.meta.url': '__vgImportMetaUrl' },
  banner: { js: "const __vgImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};
await build({ ...common, ...commonJs, entryPoints: { read: 'src/cli/run-cli.ts' }, plugins: [lazyBuiltins, sharedBuiltins, sqliteAddon], ...strictImports });
/**
 * `query.cjs`: the read verbs a daemon also answers (src/cli/run-read-cli.ts),
 * the same way, without the write side, the faces or the daemon: ~0.7 MB
 * instead of ~1.6 MB, for the reads agents run most (main.ts).
 */
await build({ ...common, ...commonJs, entryPoints: { query: 'src/cli/run-read-cli.ts' }, plugins: [lazyBuiltins, sharedBuiltins, sqliteAddon], ...strictImports });

/** main.ts's `import('./run-cli.js')` is the bundled CLI above, loaded at run time. */
const cliAtRunTime = {
  name: 'cli-at-run-time',
  setup(b) {
    b.onResolve({ filter: /^\.\/run-cli\.js$/ }, () => ({ path: './cli.js', external: true }));
  },
};
await build({ ...common, entryPoints: { main: 'src/cli/main.ts' }, format: 'esm', define, banner: { js: esmBanner }, plugins: [cliAtRunTime] });
await build({ ...common, ...commonJs, entryPoints: { main: 'src/cli/main.ts' }, plugins: [cliAtRunTime, sharedBuiltins], ...strictImports });
