import { IndexSession, oneShotReader, WatchRefresh, type Freshness, type ReadPoolStatus, type FreshIndexOptions, type FreshRead, type IndexReader, type WatchRefreshStatus } from '../index/index.js';
import type { IndexHandle, RefreshResult } from '../index/index.js';
import { fileStamp, readVaultConfig, selectVault, vaultConfigPath, vaultIdentity, type VaultConfig, type VaultSelection } from '../vault/index.js';

type Env = Record<string, string | undefined>;

export interface VaultSessionOptions {
  /** `--vault PATH|NAME`; else VAULTGATE_VAULT, else the machine config's default_vault. */
  vault?: string;
  env: Env;
  cwd: string;
  /**
   * Keep the index open between reads (long-lived servers). A one-shot CLI
   * process opens it per read and closes it, so nothing lingers on exit.
   */
  keepIndexOpen?: boolean;
  /**
   * How a long-lived session learns what changed before a read. `walk` (the
   * default): a stat walk of the vault, every read. `watch`: a file watcher
   * reports which paths may have changed and a read refreshes only those (no
   * walk at all when nothing changed), walking whenever the watcher cannot
   * vouch for its report (WatchRefresh says when). Implies `keepIndexOpen`.
   * A face that watches must await {@link VaultSession.settle} before each
   * operation (runOperation does, through `OpContext.settle`).
   */
  freshness?: Freshness;
  /** With `watch`: walk at least this often anyway (default DEFAULT_WALK_INTERVAL_MS; 0 walks every read). */
  walkIntervalMs?: number;
  /** Progress of a cold index or a large refresh, for a face that can show it. */
  onProgress?: (p: { phase: string; done: number; total: number }) => void;
}

/**
 * One vault as every face sees it: its root, identity, config and index. A
 * one-shot CLI process makes one per command; the MCP server, `serve` and the
 * daemon make one at start and keep it, so the index stays open and the config
 * is re-read only when its file changes. Operations get everything they need
 * about the vault from here, never from a face.
 */
export class VaultSession implements IndexReader {
  readonly root: string;
  readonly env: Env;
  readonly selection: VaultSelection;
  #reader: IndexReader & { close?: () => void };
  #watch: WatchRefresh | null = null;
  #config: { key: string; value: VaultConfig } | null = null;
  #onProgress: VaultSessionOptions['onProgress'];

  private constructor(selection: VaultSelection, opts: VaultSessionOptions) {
    this.selection = selection;
    this.root = selection.root;
    this.env = opts.env;
    if (opts.freshness === 'watch') {
      const watch = new WatchRefresh(this.root, { walkIntervalMs: opts.walkIntervalMs });
      this.#watch = watch;
      this.#reader = new IndexSession(this.root, opts.env, (handle, o) => watch.refresh(handle, o), true);
    } else {
      this.#reader = opts.keepIndexOpen ? new IndexSession(this.root, opts.env, undefined, true) : oneShotReader(this.root, opts.env);
    }
    this.#onProgress = opts.onProgress;
  }

  /** Select the vault (typed error when there is none) and open a session on it. */
  static open(opts: VaultSessionOptions): VaultSession {
    return new VaultSession(selectVault(opts.vault, opts.env, opts.cwd), opts);
  }

  /** The vault id approvals and caches bind to (predicted when the vault is not initialised). */
  identity(): { vault_id: string; initialised: boolean } {
    return vaultIdentity(this.root);
  }

  /**
   * `<vault>/.vaultgate/config.yaml`, parsed strictly. Cached by the file's stat (size,
   * mtime, ctime, inode: an mtime put back still changes ctime), so a long-lived session sees an edit at its next call.
   */
  config(): VaultConfig {
    const key = statKey(vaultConfigPath(this.root));
    if (this.#config?.key !== key) this.#config = { key, value: readVaultConfig(this.root) };
    return this.#config.value;
  }

  read<T>(read: (handle: IndexHandle, refresh: RefreshResult) => T, opts?: FreshIndexOptions): FreshRead<T> {
    return this.#reader.read(read, this.#onProgress && !opts?.onProgress ? { ...opts, onProgress: this.#onProgress } : opts);
  }

  /**
   * Resolves once the file watcher has taken in every change made before the
   * call (a no-op without one). A long-lived face awaits it before each
   * operation: a request arrives after the changes its sender made.
   */
  settle(): Promise<void> {
    return this.#watch?.settle() ?? Promise.resolve();
  }

  /** How reads learn what changed (`daemon status` shows it); null for a one-shot or walking session. */
  freshness(): WatchRefreshStatus | null {
    return this.#watch?.status() ?? null;
  }

  /** The index's reader threads (`daemon status`): null for a one-shot session, or until a big query started them. */
  readPool(): ReadPoolStatus | null {
    return this.#reader instanceof IndexSession ? this.#reader.readPool() : null;
  }

  /** Whether a watched session is due its periodic walk (a server then refreshes while idle). */
  walkDue(): boolean {
    return this.#watch?.walkDue() ?? false;
  }

  close(): Promise<void> {
    this.#reader.close?.();
    return this.#watch?.close() ?? Promise.resolve();
  }
}

function statKey(file: string): string {
  try {
    return fileStamp(file) ?? 'absent';
  } catch {
    return 'absent';
  }
}
