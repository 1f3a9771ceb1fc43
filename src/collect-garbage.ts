import { loadV8, loadVm } from './lazy-require.js';

/**
 * A full garbage collection, where a process knows it has just made a lot of
 * garbage: between the phases of a big index build (src/index/refresh.ts), and
 * while a watch of a big vault starts (src/vault/vault-watcher.ts). V8 lets
 * old-generation garbage pile up while the heap is far below its limit (gigabytes
 * on a machine with memory to spare): resolving the 351k links of a 100k-note
 * vault left ~100 MB of dead rows and resolutions in the heap (peak RSS of that
 * phase 265 MB; 197 MB with a collection every 50k links, at ~90 ms each on a busy
 * 2-core machine; every 20k links kept the heap nearer what the resolver then held,
 * ~1% of the build; the resolver now holds one page of links' files, and the
 * heap during the relink stays near 30 MB). Nothing else of the process depends on
 * it: where the collector cannot be reached it does nothing.
 *
 * `gc` is exposed by `--expose-gc`; without that flag, setting it at run time
 * makes it available to contexts created afterwards (one small vm context, once).
 */
let collect: (() => void) | null | undefined;

export function collectGarbage(): void {
  if (collect === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') collect = exposed;
    else {
      try {
        loadV8().setFlagsFromString('--expose-gc');
        const fn = loadVm().runInNewContext('gc') as unknown;
        collect = typeof fn === 'function' ? (fn as () => void) : null;
      } catch {
        collect = null;
      }
    }
  }
  collect?.();
}
