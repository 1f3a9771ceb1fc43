import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { writePrivateFile } from '../vault/dirs.js';

/**
 * Load a CommonJS bundle through V8's code cache. A read is a new process, and
 * most of what it pays beyond the stat walk is V8 parsing ~0.5 MB of the CLI
 * (~13 ms at idle) and Node's ES module loader; Node 20 has no compile cache
 * (module.enableCompileCache came in 22), so the read verbs run a CommonJS
 * bundle of the CLI (dist/cli/read.cjs, scripts/bundle.mjs) compiled by
 * `vm.Script` with the code V8 serialised after an earlier run.
 *
 * The cache is only ever an optimisation: V8 checks it against its own version
 * and flags and the source's length, and rejects it (`cachedDataRejected`) when
 * any differs; then the bundle is compiled from source and the cache written
 * again. V8 does not compare the source's bytes, so the caller names the cache
 * file after what identifies the bundle (main.ts: the build, the file's size
 * and mtime).
 * A cache that cannot be read or written is ignored. It lives in the user's
 * cache root (a folder of mode 0700, files 0600), one file per build.
 */
export interface CachedBundle {
  exports: Record<string, unknown>;
  /** Whether V8 compiled from the cache (`used`), refused it (`rejected`), or there was none. */
  cache: 'used' | 'rejected' | 'none';
  /** Write the code cache if there was none or V8 rejected it; call after the run, so it holds the functions the run compiled. */
  save(): void;
}

/**
 * `keep(name)`: which other `.bin` files beside the cache file stay when it is
 * written (default: none, so the caches of earlier builds go).
 */
export function requireWithCodeCache(file: string, cacheFile: string | null, keep: (name: string) => boolean = () => false): CachedBundle {
  const source = fs.readFileSync(file, 'utf8');
  let cachedData: Buffer | undefined;
  if (cacheFile !== null) {
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  // Node's own CommonJS wrapper, on the source's first line: stack traces keep their line numbers.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, { filename: file, cachedData });
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const stale = cachedData === undefined || script.cachedDataRejected === true;
  return {
    exports: module.exports,
    cache: cachedData === undefined ? 'none' : stale ? 'rejected' : 'used',
    save() {
      if (cacheFile === null || !stale) return;
      try {
        writePrivateFile(cacheFile, script.createCachedData());
        // Other builds' caches (~0.5 MB each) go when a new one is written.
        const dir = path.dirname(cacheFile);
        for (const name of fs.readdirSync(dir)) {
          if (name.endsWith('.bin') && name !== path.basename(cacheFile) && !keep(name)) fs.rmSync(path.join(dir, name), { force: true });
        }
      } catch {
        // a read-only or full cache root: the next run compiles from source again
      }
    },
  };
}
