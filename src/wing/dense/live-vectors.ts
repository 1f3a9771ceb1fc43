import fs from 'node:fs';
import { vectorStoreFile } from '../similar/vector-store.js';
import { NotePool, bestSections, dotAt, noteVectors, openStoredVectors, storeVersion, storedDims, storedNoteList, storedNoteVectors, type NoteVectors, type ScanResult, type StoredModel, type StoredVectors } from './stored-vectors.js';

type Env = Record<string, string | undefined>;

/** Section vectors held in memory up to this many MB (VAULTGATE_DENSE_LIVE_MB): 10k notes × ~5 sections × 384 dims ≈ 77 MB. */
export const LIVE_SECTIONS_MB = 160;
/** Notes read per turn of the event loop by the first load (~a few ms each). */
const LOAD_SLICE = 250;

/**
 * The note vectors of one (provider, model) held in memory by a long-lived face
 * (`daemon`, `mcp`, `serve`), so a search's dense scan is a loop over one
 * Float32Array instead of reading every row of the store (measured at 10k
 * notes × 384 dims: ~170–230 ms through SQLite, a few ms here; bench/dense.bench.ts).
 *
 * The note vectors are held (10k notes × 384 dims: 15 MB), and the section
 * vectors while they fit {@link LIVE_SECTIONS_MB} (past it, the sections of the
 * few notes a query needs are read from the store by key, as the one-shot CLI
 * reads them). The matrix is kept in the store's row order and scanned with
 * the same {@link NotePool}, so it chooses exactly the notes the SQLite scan
 * chooses: fusion's output does not depend on which face answers.
 *
 * Kept current by {@link LiveVectors.sync}, which costs a stat and one pragma
 * when nothing changed: SQLite's `data_version` moves whenever another
 * connection (the background embedder, a `similar --provider` run) commits,
 * and then only the rows whose hash changed are read again. A store file
 * replaced on disk (a new inode) is reopened and read whole.
 */
export class LiveVectors {
  #db: StoredVectors | null = null;
  #ino: number | null = null;
  #version: number | null = null;
  #dims: number | null = null;
  #paths: string[] = [];
  #shas: string[] = [];
  /** Row i's note vector at i × dims; `#valid[i]` is 0 for a row whose vector has another length (counted, never scored). */
  #matrix = new Float32Array(0);
  #valid = new Uint8Array(0);
  /** Row i's section vectors (normalised, zeros for a section without text), as the store holds them; null over the budget. */
  #sections: (Float32Array | undefined)[] | null = [];
  readonly #file: string;
  readonly #budgetBytes: number;

  constructor(
    readonly root: string,
    readonly env: Env,
    readonly provider: string,
    readonly model: string,
  ) {
    this.#file = vectorStoreFile(root, env);
    const mb = Number(env.VAULTGATE_DENSE_LIVE_MB);
    this.#budgetBytes = (Number.isFinite(mb) && mb >= 0 ? mb : LIVE_SECTIONS_MB) * 1024 * 1024;
  }

  /** The store's connection (read-only), or null when there is no store this build reads. */
  get db(): StoredVectors | null {
    return this.#db;
  }

  /** The model's vector length, or null when none of its vectors is stored. */
  get dims(): number | null {
    return this.#dims;
  }

  /** Which store and which commit of it the matrix holds (a change of either changes it). */
  get stamp(): string {
    return `${this.#ino ?? 'none'}:${this.#version ?? 'none'}`;
  }

  get notes(): number {
    return this.#paths.length;
  }

  /** Whether section vectors are held in memory too (within VAULTGATE_DENSE_LIVE_MB), not read from the store per query. */
  get holdsSections(): boolean {
    return this.#sections !== null;
  }

  /**
   * Whether the matrix holds the store as of one of its commits: the first
   * load (in slices, {@link warm}) has finished, or there is no store to hold.
   * Until then a search reads the store itself, as the one-shot CLI does.
   */
  get ready(): boolean {
    return this.#version !== null || (this.#db === null && this.#loading === null);
  }

  #loading: Promise<void> | null = null;
  /** Bumped by close(): a load in flight from before it stops. */
  #generation = 0;

  /**
   * Bring the matrix up to what the store holds now: nothing to do (a stat and
   * a pragma) when no other connection committed, else only the rows whose
   * hash changed are read again. The first load is started in slices instead
   * ({@link warm}): 10k notes' vectors (~90 MB) read at once would hold a
   * face's event loop for seconds.
   */
  sync(): void {
    const ino = fs.statSync(this.#file, { throwIfNoEntry: false })?.ino ?? null;
    if (this.#disposed) return;
    if (ino !== this.#ino || (this.#db !== null && !this.#db.open)) {
      this.#reset();
      this.#ino = ino;
      if (ino === null) return;
      this.#db = openStoredVectors(this.root, this.env);
    }
    const db = this.#db;
    if (db === null) return;
    if (this.#version === null) {
      void this.warm();
      return;
    }
    // Read before the rows: a commit after it moves it again, so the next sync re-reads (never a missed change).
    const version = storeVersion(db);
    if (version === this.#version) return;
    if (db.transaction(() => this.#reload(db))()) this.#version = version;
    else {
      // Thousands of rows new at once (a `similar --provider` run elsewhere): loaded afresh in slices meanwhile.
      this.#clear();
      this.#version = null;
      void this.warm();
    }
  }

  /** The first load, a few hundred notes per turn of the event loop; resolves when the matrix is {@link ready}. */
  warm(): Promise<void> {
    if (this.ready) return Promise.resolve();
    this.#loading ??= this.#load().finally(() => (this.#loading = null));
    return this.#loading;
  }

  async #load(): Promise<void> {
    const db = this.#db;
    const generation = this.#generation;
    if (db === null) return;
    const stillOurs = () => this.#generation === generation && this.#db === db && db.open;
    // The version first: commits during the load are caught up by the sync after it.
    const version = storeVersion(db);
    const dims = storedDims(db, this.provider, this.model);
    if (dims === null) {
      this.#dims = null;
      this.#version = version;
      return;
    }
    const list = storedNoteList(db, this.provider, this.model);
    const stored: StoredModel = { db, provider: this.provider, model: this.model, dims };
    const paths: string[] = [];
    const shas: string[] = [];
    const matrix = new Float32Array(list.length * dims);
    const valid = new Uint8Array(list.length);
    let sections: (Float32Array | undefined)[] | null = [];
    let bytes = 0;
    for (let c = 0; c < list.length; c += LOAD_SLICE) {
      await new Promise((r) => setImmediate(r));
      if (!stillOurs()) return;
      const chunk = list.slice(c, c + LOAD_SLICE).map((n) => n.path);
      // One read transaction per slice: a row's note vector and its sections are of one commit.
      const [notes, secs] = db.transaction(() => [storedNoteVectors(stored, chunk), sections ? noteVectors(stored, chunk) : null] as const)();
      for (const p of chunk) {
        const r = notes.get(p);
        if (!r) continue; // deleted since the listing
        const k = paths.length;
        paths.push(p);
        shas.push(r.sha256);
        if (r.vector) matrix.set(r.vector, k * dims);
        valid[k] = r.vector ? 1 : 0;
        if (sections) {
          const v = secs?.get(p)?.vectors;
          sections.push(v);
          bytes += v?.byteLength ?? 0;
          if (bytes > this.#budgetBytes) sections = null;
        }
      }
    }
    if (!stillOurs()) return;
    this.#dims = dims;
    this.#paths = paths;
    this.#shas = shas;
    this.#matrix = matrix.slice(0, paths.length * dims);
    this.#valid = valid.slice(0, paths.length);
    this.#sections = sections;
    this.#row = new Map(paths.map((p, i) => [p, i]));
    this.#version = version;
    this.sync();
  }

  /** The rows whose hash changed read again; false (nothing done) when too many did for one turn of the event loop. */
  #reload(db: StoredVectors): boolean {
    const dims = storedDims(db, this.provider, this.model);
    if (dims !== this.#dims) this.#clear();
    this.#dims = dims;
    if (dims === null) return true;
    const list = storedNoteList(db, this.provider, this.model);
    const held = new Map(this.#paths.map((p, i) => [p, i]));
    const stale = list.filter((n) => {
      const i = held.get(n.path);
      return i === undefined || this.#shas[i] !== n.sha256;
    });
    if (stale.length > LOAD_SLICE * 8) return false;
    const stalePaths = stale.map((n) => n.path);
    const stored: StoredModel = { db, provider: this.provider, model: this.model, dims };
    const fresh = storedNoteVectors(stored, stalePaths);
    // Section vectors while they fit the budget: the held ones kept, the new ones read in chunks, all dropped past it.
    let sections: (Float32Array | undefined)[] | null = null;
    let freshSections = new Map<string, NoteVectors>();
    if (this.#sections !== null) {
      let bytes = 0;
      for (const n of list) {
        const i = held.get(n.path);
        if (i !== undefined && this.#shas[i] === n.sha256) bytes += this.#sections[i]?.byteLength ?? 0;
      }
      for (let k = 0; k < stalePaths.length && bytes <= this.#budgetBytes; k += 500) {
        for (const [p, v] of noteVectors(stored, stalePaths.slice(k, k + 500))) {
          freshSections.set(p, v);
          bytes += v.vectors.byteLength;
        }
      }
      if (bytes <= this.#budgetBytes) sections = new Array(list.length);
      else freshSections = new Map();
    }
    const matrix = new Float32Array(list.length * dims);
    const valid = new Uint8Array(list.length);
    list.forEach((n, k) => {
      const f = fresh.get(n.path);
      if (f) {
        if (f.vector) matrix.set(f.vector, k * dims);
        valid[k] = f.vector ? 1 : 0;
        if (sections) sections[k] = freshSections.get(n.path)?.vectors;
        return;
      }
      const i = held.get(n.path)!;
      matrix.set(this.#matrix.subarray(i * dims, (i + 1) * dims), k * dims);
      valid[k] = this.#valid[i]!;
      if (sections) sections[k] = this.#sections![i];
    });
    this.#paths = list.map((n) => n.path);
    this.#shas = list.map((n) => n.sha256);
    this.#matrix = matrix;
    this.#valid = valid;
    this.#sections = sections;
    this.#row = new Map(this.#paths.map((p, i) => [p, i]));
    return true;
  }

  #row = new Map<string, number>();

  /** What {@link scanSections} returns for the same store: the same notes, sections and count; null over `maxNotes`. */
  scan(queries: readonly Float32Array[], topK: number, maxNotes = Infinity): ScanResult | null {
    const dims = this.#dims;
    if (this.#db === null || dims === null) return { top: queries.map(() => []), scanned: 0 };
    const n = this.#paths.length;
    if (n > maxNotes) return null;
    const pools = queries.map(() => new NotePool());
    for (let i = 0; i < n; i++) {
      if (this.#valid[i] === 0) continue;
      for (let qi = 0; qi < queries.length; qi++) pools[qi]!.offer(this.#paths[i]!, dotAt(this.#matrix, i * dims, queries[qi]!, dims));
    }
    const top = queries.map((q, qi) => bestSections(this.noteVectors(pools[qi]!.best()), dims, q, topK));
    return { top, scanned: n };
  }

  /** The section vectors of these notes (those stored), as {@link noteVectors} reads them from the store. */
  noteVectors(paths: readonly string[]): Map<string, NoteVectors> {
    const dims = this.#dims;
    if (this.#db === null || dims === null) return new Map();
    if (this.#sections === null) return noteVectors({ db: this.#db, provider: this.provider, model: this.model, dims }, paths);
    const out = new Map<string, NoteVectors>();
    for (const p of paths) {
      const i = this.#row.get(p);
      const v = i === undefined ? undefined : this.#sections[i];
      if (i !== undefined && v !== undefined) out.set(p, { sha256: this.#shas[i]!, vectors: v, count: Math.floor(v.length / dims) });
    }
    return out;
  }

  /** For good: a released face's matrix never reopens the store. */
  close(): void {
    this.#disposed = true;
    this.#reset();
  }

  #disposed = false;

  #reset(): void {
    this.#generation++;
    if (this.#db?.open) this.#db.close();
    this.#db = null;
    this.#ino = null;
    this.#version = null;
    this.#clear();
    this.#dims = null;
  }

  #clear(): void {
    this.#paths = [];
    this.#shas = [];
    this.#matrix = new Float32Array(0);
    this.#valid = new Uint8Array(0);
    this.#sections = [];
    this.#row = new Map();
  }
}

/**
 * Which processes hold live matrices: those that run a long-lived face. A
 * one-shot CLI never builds one (reading every note vector once costs what its
 * one scan costs), so the registry is empty until a face holds its vault.
 */
const holds = new Map<string, { holders: number; live: LiveVectors | null }>();

/**
 * Keep the vault's vectors live in this process until the returned release is
 * called (a face's background embedder holds it for the face's lifetime).
 */
export function holdLiveVectors(root: string, env: Env): () => void {
  const key = vectorStoreFile(root, env);
  const entry = holds.get(key) ?? { holders: 0, live: null };
  entry.holders++;
  holds.set(key, entry);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--entry.holders > 0) return;
    entry.live?.close();
    holds.delete(key);
  };
}

/** Whether a long-lived face in this process holds the vault (and so keeps its index open). */
export function liveVectorsHeld(root: string, env: Env): boolean {
  return holds.has(vectorStoreFile(root, env));
}

/**
 * The live matrix of (provider, model) for this vault, synced (or its first
 * load started: use it only when {@link LiveVectors.ready}), or null when no
 * face holds the vault in this process. Another model than the one held (the
 * config changed: a new model, or a new prefix convention, which is part of the
 * stored model's name) replaces it.
 */
export function liveVectorsFor(root: string, env: Env, provider: string, model: string): LiveVectors | null {
  const entry = holds.get(vectorStoreFile(root, env));
  if (!entry) return null;
  if (!entry.live || entry.live.provider !== provider || entry.live.model !== model) {
    entry.live?.close();
    entry.live = new LiveVectors(root, env, provider, model);
  }
  entry.live.sync();
  return entry.live;
}
