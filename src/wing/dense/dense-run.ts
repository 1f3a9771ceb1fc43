import { queryCandidates } from '../../context/gather.js';
import type { Candidate } from '../../context/fit-budget.js';
import type { CandidateQuery } from '../../context/types.js';
import { SECTION_BITS, type Db, type FreshRead, type IndexReader, type RefreshResult } from '../../index/index.js';
import { SECTION_COLUMNS, locateSection, makeSnippet, parseQuery, searchIndex, type SearchHit, type SearchOptions, type SearchResult, type SectionRow } from '../../retrieval/index.js';
import type { ConsentGate } from '../providers/index.js';
import { readDenseSetting, type DenseConfig } from './config.js';
import { agreement, fuseRanks, scriptGate } from './fuse.js';
import { embedQueryTexts, type QueryVectors } from './query-vectors.js';
import { indexChangeKey } from './index-change.js';
import { liveVectorsFor, liveVectorsHeld, type LiveVectors } from './live-vectors.js';
import { noteVectors, openStoredVectors, scanSections, sectionCosine, storedDims, type NoteVectors, type ScannedSection, type StoredModel, type StoredVectors } from './stored-vectors.js';

type Env = Record<string, string | undefined>;

/** Lexical candidates a dense ranking may reorder: search's notes / context's notes (at least the page asked for). */
export const SEARCH_POOL = 30;
export const CONTEXT_POOL = 20;
/** Best stored sections per query the scan keeps: the dense ranking's candidates not found by words. */
export const SCAN_TOP = 50;

const SECTION_MASK = 2 ** SECTION_BITS - 1;

/**
 * What dense fusion did for one `search` or `context` (the `dense` object of
 * their JSON, docs/json.md). Present only when `search.embeddings` is configured.
 */
export interface DenseReport {
  provider: string | null;
  model: string | null;
  /**
   * `fused`: dense ranks were fused with the lexical ones; `gated`: not fused (see `gate`);
   * `no_vectors`: no section of this model is stored yet; `skipped`: nothing to fuse (no lexical hit, `--all-sections`);
   * `consent_required` / `consent_declined`: the query was not sent (a provider off this machine; the person has not consented, or declined);
   * `unavailable` / `failed`: the provider did not answer usably; `config_invalid`: `search.embeddings` cannot be used.
   */
  status: 'fused' | 'gated' | 'no_vectors' | 'skipped' | 'consent_required' | 'consent_declined' | 'unavailable' | 'failed' | 'config_invalid';
  /** Why it was not fused: the query's script is not in `scripts`, or the dense ranking disagreed with the lexical one. */
  gate: 'script' | 'agreement' | null;
  /** Unicode scripts of the query's letters (all queries of a context). */
  scripts: string[];
  /** Lexical candidate notes that had a stored vector (dense score used). */
  used: number;
  /** Lexical candidate notes without a usable stored vector (not embedded, or changed since). */
  missing: number;
  /** Notes brought in by the dense ranking alone (returned ones, for search; candidates, for context). */
  added: number;
  /** Stored note vectors compared by the scan; null when none ran (over `max_scan_notes`, or no query vector). */
  scanned: number | null;
  /** Share of the dense top notes the lexical ranking also found (lowest over a context's queries); null when not measured. */
  agreement: number | null;
  /** With consent_required / consent_declined: where the query would go, its size, and the request the person can approve. Never a token. */
  destination?: string;
  host?: string;
  request_bytes?: number;
  consent_request?: string | null;
}

/** What a {@link DenseRun} starts from: where, the configuration (null: invalid), the query texts, and the report so far. */
interface DenseRunInit {
  root: string;
  env: Env;
  cfg: DenseConfig | null;
  texts: string[];
  base: Partial<DenseReport> & Pick<DenseReport, 'status'>;
}

/**
 * One search's or context's dense side: the query texts embedded up front (the
 * only async part: the index is read synchronously), then the fusion inside
 * the index read. Created by {@link prepareDense}; null when nothing is
 * configured, so the caller runs exactly the lexical path it always ran.
 */
export class DenseRun {
  readonly warnings: string[] = [];
  private readonly report: DenseReport;
  private store: StoredVectors | null | undefined;
  /** A long-lived face's matrix (live-vectors.ts), whose store connection `store` then is (kept open after this run). */
  private live: LiveVectors | null = null;
  private dims: number | null = null;
  private scan: { top: ScannedSection[][]; scanned: number } | null | undefined;
  private readonly agreements: number[] = [];
  private fusedAny = false;
  private gatedBy: DenseReport['gate'] = null;

  private readonly root: string;
  private readonly env: Env;
  private readonly cfg: DenseConfig | null;
  private readonly texts: string[];
  /** Per text, its query vector once embedded (null until then, or when it was not sent). */
  private vectors: (Float32Array | null)[];

  constructor(init: DenseRunInit) {
    const { cfg, base } = init;
    this.root = init.root;
    this.env = init.env;
    this.cfg = cfg;
    this.texts = init.texts;
    this.vectors = init.texts.map(() => null);
    this.report = { provider: cfg?.spec.name ?? null, model: cfg?.model ?? null, gate: null, scripts: [], used: 0, missing: 0, added: 0, scanned: null, agreement: null, ...base };
  }

  /** The query's embedding in flight ({@link startDense}); null once it has arrived (or when none was sent). */
  private pending: Promise<void> | null = null;

  /** Sets the embedding in flight; when it arrives, the vectors (or the problem, as status and warning) are this run's. */
  inFlight(got: Promise<QueryVectors>, pass: boolean[]): void {
    this.pending = got.then((g) => {
      if (g.status !== 'ok') {
        Object.assign(this.report, { status: g.status, gate: null, ...('consent_request' in g ? { destination: g.destination, host: g.host, request_bytes: g.request_bytes, consent_request: g.consent_request } : {}) });
        this.warnings.push('consent_request' in g ? `dense: ${g.message}; the ranking is lexical. ${g.hint}` : `dense: ${g.message}; the ranking is lexical`);
        return;
      }
      let k = 0;
      this.vectors = this.texts.map((_, i) => (pass[i] ? g.vectors[k++]! : null));
    });
    // A read that fails before anyone awaits the embedding must not leave an unhandled rejection (a daemon would exit).
    this.pending.catch(() => {});
  }

  /** Resolves when the query's vectors (if any were asked for) have arrived: every read of the run needs them. */
  async ready(): Promise<void> {
    const p = this.pending;
    if (p) await p;
    this.pending = null;
  }

  /**
   * `search` through a reader, the embedding overlapped with the lexical
   * ranking: in a long-lived face (one that holds live vectors, so a second
   * read of its open, watched index costs no walk), the lexical pool is ranked
   * while the model server embeds the query on another core, then the fusion
   * runs in a second read, with that pool when the index has not changed
   * between the two (its change key, background-embed.ts), else afresh. The
   * result is the one {@link search} gives in one read. A one-shot process
   * waits for the vector, then reads once (a second read would walk the vault again).
   */
  async searchRead(reader: IndexReader, query: string, opts: SearchOptions): Promise<FreshRead<SearchResult>> {
    if (!this.pending || opts.allSections || !liveVectorsHeld(this.root, this.env)) {
      await this.ready();
      return reader.read((h) => this.search(h.db, query, opts));
    }
    // Let the request reach the socket before this thread is busy ranking (fetch writes it from the event loop).
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
    const first = reader.read((h) => ({ key: indexChangeKey(h.db), lex: searchIndex(h.db, query, { ...opts, limit: lexicalPoolLimit(opts) }) }));
    await this.ready();
    const second = reader.read((h) => this.search(h.db, query, opts, indexChangeKey(h.db) === first.result.key ? first.result.lex : undefined));
    return { ...second, refresh: bothRefreshes(first.refresh, second.refresh) };
  }

  /** The `dense` object for the JSON, as of the last read. */
  result(): DenseReport {
    const r = { ...this.report };
    if (r.status === 'skipped' || r.status === 'gated') {
      // Fused for any query wins; else the agreement gate; else the script gate of the texts; else nothing to fuse.
      if (this.fusedAny) Object.assign(r, { status: 'fused', gate: null });
      else if (this.gatedBy) Object.assign(r, { status: 'gated', gate: this.gatedBy });
    }
    r.agreement = this.agreements.length ? Math.round(Math.min(...this.agreements) * 1000) / 1000 : null;
    return r;
  }

  close(): void {
    if (!this.live) this.store?.close();
    this.store = null;
  }

  /** Each read starts its counts afresh (context re-selects when notes changed meanwhile). */
  begin(): void {
    Object.assign(this.report, { used: 0, missing: 0, added: 0 });
    this.agreements.length = 0;
    this.fusedAny = false;
    this.gatedBy = null;
  }

  private vectorOf(text: string): Float32Array | null {
    const i = this.texts.indexOf(text);
    return i < 0 ? null : (this.vectors[i] ?? null);
  }

  private openStore(): boolean {
    if (this.store === undefined) {
      const live = this.cfg ? liveVectorsFor(this.root, this.env, this.cfg.spec.name, this.cfg.storedModel) : null;
      // Still loading (a face's first minutes): this query reads the store, as a one-shot process does.
      this.live = live?.ready ? live : null;
      if (this.live) {
        this.store = this.live.db;
        this.dims = this.live.dims;
      } else {
        this.store = openStoredVectors(this.root, this.env);
        this.dims = this.store && this.cfg ? storedDims(this.store, this.cfg.spec.name, this.cfg.storedModel) : null;
      }
      if (this.dims === null) {
        this.report.status = 'no_vectors';
        this.warnings.push(`dense: no section vectors of ${this.cfg!.spec.name}/${this.cfg!.model} are stored yet; the ranking is lexical. Run \`vaultgate similar --duplicates --provider ${this.cfg!.spec.name}\` to embed the vault.`);
      }
    }
    return this.store !== null && this.dims !== null;
  }

  /** The scan over the stored vectors, once for all the run's queries; null when over the bound. */
  private scanned(): { top: ScannedSection[][]; scanned: number } | null {
    if (this.scan === undefined) {
      const { maxScanNotes } = this.cfg!;
      const queries = this.vectors.filter((v): v is Float32Array => v !== null);
      const scan = this.live ? (qs: Float32Array[]) => this.live!.scan(qs, SCAN_TOP, maxScanNotes) : (qs: Float32Array[]) => scanSections(this.storedModel(), qs, { topK: SCAN_TOP, maxNotes: maxScanNotes });
      this.scan = queries.length > 0 ? scan(queries) : null;
      if (this.scan === null && queries.length > 0) this.warnings.push(`dense: more stored notes than max_scan_notes (${maxScanNotes}); only the lexical candidates were scored`);
      this.report.scanned = this.scan?.scanned ?? null;
    }
    return this.scan;
  }

  private topFor(text: string): ScannedSection[] {
    const s = this.scanned();
    if (!s) return [];
    const k = this.vectors.filter((v) => v !== null).indexOf(this.vectorOf(text)!);
    return s.top[k] ?? [];
  }

  /** Stored section vectors of these notes: from a face's live matrix when there is one, else from the store. */
  private noteVectorsOf(paths: string[]): Map<string, NoteVectors> {
    return this.live ? this.live.noteVectors(paths) : noteVectors(this.storedModel(), paths);
  }

  /** The store's vectors of the configured model (once a store is open and its dims known). */
  private storedModel(): StoredModel {
    return { db: this.store!, provider: this.cfg!.spec.name, model: this.cfg!.storedModel, dims: this.dims! };
  }

  /** Whether this text is fused at all: configured, embedded, passing its script gate, vectors stored. */
  private usable(text: string): Float32Array | null {
    const v = this.vectorOf(text);
    if (v === null) return null;
    return this.openStore() ? v : null;
  }

  /** `search` (one best section per note): the lexical notes and the dense-only ones, fused by rank. */
  search(db: Db, query: string, opts: SearchOptions, lexicalPool?: SearchResult): SearchResult {
    this.begin();
    const q = this.usable(query);
    if (q === null || opts.allSections) return searchIndex(db, query, opts);
    const limit = Math.min(opts.limit ?? 10, 1000);
    // The pool ranked by {@link searchRead} while the query was embedded, when the index is as it was then.
    const lex = lexicalPool ?? searchIndex(db, query, { ...opts, limit: lexicalPoolLimit(opts) });
    if (lex.total === 0) return searchIndex(db, query, opts); // "not in the vault" stays the words' answer
    const { weight, minAgreement } = this.cfg!;
    const lead = lex.hits.filter((h) => h.match !== 'text');
    const text = lex.hits.filter((h) => h.match === 'text');
    const vecs = this.noteVectorsOf(text.map((h) => h.path));
    const cos = new Map<string, number>();
    for (const h of text) {
      const best = noteBest(vecs.get(h.path), h.sha256, this.dims!, q);
      if (best === null) this.report.missing++;
      else {
        this.report.used++;
        cos.set(h.path, best);
      }
    }
    // Dense-only notes: the scan's best sections still current in the index, one per note.
    const parsed = parseQuery(query);
    const mayAdd = !opts.tag && !(opts.where?.length) && parsed.excluded.length === 0 && !opts.paths;
    const inIndex = currentSections(db, this.topFor(query));
    const denseTop = [...new Set(inIndex.map((s) => s.row.path))];
    const agree = agreement(lex.hits.map((h) => h.path), denseTop);
    if (agree !== null) this.agreements.push(agree);
    if (agree !== null && agree < minAgreement) {
      this.gatedBy = 'agreement';
      return searchIndex(db, query, opts);
    }
    const lexPaths = new Set(lex.hits.map((h) => h.path));
    const extra = new Map<string, { row: SectionRow; cosine: number }>();
    if (mayAdd) {
      for (const s of inIndex) {
        if (lexPaths.has(s.row.path) || extra.has(s.row.path)) continue;
        if (opts.pathPrefix && !s.row.path.startsWith(opts.pathPrefix.normalize('NFC').replace(/^\.?\/+/, ''))) continue;
        if (opts.pathPrefixes && !opts.pathPrefixes.some((p) => s.row.path.startsWith(p))) continue;
        extra.set(s.row.path, s);
      }
    }
    const dense = [...[...cos].map(([path, c]) => ({ path, c })), ...[...extra].map(([path, s]) => ({ path, c: s.cosine }))].sort((a, b) => b.c - a.c).map((d) => d.path);
    const fused = fuseRanks(text.map((h) => h.path), dense, weight);
    const top = (1 + weight) / (60 + 1);
    const byPath = new Map(text.map((h) => [h.path, h]));
    const terms = parsed.terms;
    const hits: SearchHit[] = [...lead];
    for (const f of fused) {
      if (hits.length >= limit) break;
      const score = Math.round((f.score / top) * 1000) / 1000;
      const h = byPath.get(f.key);
      if (h) hits.push({ ...h, score });
      else {
        const row = extra.get(f.key)!.row;
        hits.push({ ...locateSection(row), score, match: 'text', snippet: makeSnippet(row.text, terms) });
        this.report.added++;
      }
    }
    this.fusedAny = true;
    return { query, total: lex.total + this.report.added, hits };
  }

  /**
   * `context`: one query's candidate sections, lexical and dense ranks fused at
   * the section level, cut to the sections of the `limit` best notes (as the
   * lexical path cuts). Exact title and alias matches stay first.
   */
  contextCandidates(db: Db, ask: CandidateQuery): { candidates: Candidate[]; searchable: boolean } {
    const { query, label, limit, scope } = ask;
    const q = this.usable(query);
    if (q === null) return queryCandidates(db, ask);
    const base = queryCandidates(db, { ...ask, limit: Math.max(limit, CONTEXT_POOL) });
    if (base.candidates.length === 0) return base;
    const { weight, minAgreement } = this.cfg!;
    const isLead = (c: Candidate) => /^(title|alias) match for /.test(c.reason);
    const lead = base.candidates.filter(isLead);
    const rest = base.candidates.filter((c) => !isLead(c));
    const vecs = this.noteVectorsOf(rest.map((c) => c.path));
    const cos = new Map<number, number>();
    const seenNotes = new Map<string, boolean>();
    for (const c of rest) {
      const v = vecs.get(c.path);
      const x = v && v.sha256 === c.sha256 ? sectionCosine(v, c.sectionId & SECTION_MASK, this.dims!, q) : null;
      if (x !== null) cos.set(c.sectionId, x);
      seenNotes.set(c.path, (seenNotes.get(c.path) ?? false) || (v !== undefined && v.sha256 === c.sha256));
    }
    for (const has of seenNotes.values()) has ? this.report.used++ : this.report.missing++;
    const parsed = parseQuery(query);
    const inIndex = currentSections(db, this.topFor(query));
    const agree = agreement(base.candidates.map((c) => c.path), inIndex.map((s) => s.row.path));
    if (agree !== null) this.agreements.push(agree);
    if (agree !== null && agree < minAgreement) {
      this.gatedBy = 'agreement';
      return queryCandidates(db, ask);
    }
    const have = new Set(base.candidates.map((c) => c.sectionId));
    const allowed = scope && new Set(scope);
    const extra = new Map<number, { row: SectionRow; cosine: number }>();
    if (parsed.excluded.length === 0) {
      for (const s of inIndex) if (!have.has(s.row.id) && (!allowed || allowed.has(s.row.path))) extra.set(s.row.id, s);
    }
    const dense = [...[...cos].map(([id, c]) => ({ id, c })), ...[...extra].map(([id, s]) => ({ id, c: s.cosine }))].sort((a, b) => b.c - a.c).map((d) => d.id);
    const fused = fuseRanks(rest.map((c) => c.sectionId), dense, weight);
    const top = (1 + weight) / (60 + 1);
    const byId = new Map(rest.map((c) => [c.sectionId, c]));
    const notes = new Set(lead.map((c) => c.path));
    const out: Candidate[] = [...lead];
    const addedNotes = new Set<string>();
    fused.forEach((f, i) => {
      const c = byId.get(f.key);
      const path = c?.path ?? extra.get(f.key)!.row.path;
      if (!notes.has(path)) {
        if (notes.size >= limit) return;
        notes.add(path);
      }
      const score = Math.round((f.score / top) * 1000) / 1000;
      if (c) out.push({ ...c, score });
      else {
        const loc = locateSection(extra.get(f.key)!.row);
        out.push({ sectionId: loc.section_id, path: loc.path, heading_path: loc.heading_path, anchor: loc.anchor, lines: loc.lines, part: loc.part, sha256: loc.sha256, text: loc.text, reason: `dense match for ${label} (#${i + 1})`, score });
        if (!base.candidates.some((b) => b.path === path)) addedNotes.add(path);
      }
    });
    this.report.added += addedNotes.size;
    this.fusedAny = true;
    return { candidates: out, searchable: base.searchable };
  }
}

/** How many lexical hits a fused search ranks (the page asked for, at least {@link SEARCH_POOL}). */
function lexicalPoolLimit(opts: SearchOptions): number {
  return Math.max(Math.min(opts.limit ?? 10, 1000), SEARCH_POOL);
}

/** One refresh's report for two reads of one search: what either did, the second's counts of the index. */
function bothRefreshes(a: RefreshResult, b: RefreshResult): RefreshResult {
  return {
    ...b,
    refreshed: a.refreshed || b.refreshed,
    added: a.added + b.added,
    changed: a.changed + b.changed,
    deleted: a.deleted + b.deleted,
    renamed: a.renamed + b.renamed,
    touched: a.touched + b.touched,
    relinked: a.relinked + b.relinked,
    took_ms: a.took_ms + b.took_ms,
    warnings: b.warnings,
  };
}

/** A note's best section cosine, or null when it has no usable stored vector (never embedded, or changed since). */
function noteBest(v: NoteVectors | undefined, sha256: string, dims: number, q: Float32Array): number | null {
  if (!v || v.sha256 !== sha256) return null;
  let best: number | null = null;
  for (let i = 0; i < v.count; i++) {
    const c = sectionCosine(v, i, dims, q);
    if (c !== null && (best === null || c > best)) best = c;
  }
  return best;
}

/**
 * The scanned sections that are still what the index holds: the note's hash is
 * the one it was embedded at and the section at that position has the stored
 * lines (a re-indexed vault with other section rules must not point elsewhere).
 */
function currentSections(db: Db, top: ScannedSection[]): { row: SectionRow; cosine: number }[] {
  if (top.length === 0) return [];
  const stmt = db.prepare(`SELECT ${SECTION_COLUMNS}, s.empty FROM files f JOIN sections s ON s.id = f.id * ${2 ** SECTION_BITS} + ? WHERE f.path = ? AND f.kind = 'note' AND f.sha256 = ?`);
  const out: { row: SectionRow; cosine: number }[] = [];
  for (const s of top) {
    const row = stmt.get(s.idx, s.path, s.sha256) as (SectionRow & { empty: number }) | undefined;
    if (row && row.empty === 0) out.push({ row, cosine: s.cosine });
  }
  return out;
}

/**
 * The dense side of a `search` or `context`, or null when `search.embeddings`
 * is not configured (then nothing at all changes), with the texts that pass
 * the script gate sent to the provider in one request — not awaited: the run's
 * {@link DenseRun.ready} (or {@link DenseRun.searchRead}) waits for it, so the
 * caller can rank lexically meanwhile. Every problem becomes the report's
 * status and a warning, and the answer stays lexical.
 */
export async function startDense(root: string, env: Env, texts: string[], gate: ConsentGate): Promise<DenseRun | null> {
  const setting = readDenseSetting(env);
  if (setting.kind === 'off') return null;
  if (setting.kind === 'invalid') {
    const run = new DenseRun({ root, env, cfg: null, texts, base: { status: 'config_invalid', provider: setting.provider } });
    run.warnings.push(`dense: ${setting.message}; the ranking is lexical`);
    return run;
  }
  const cfg = setting.config;
  const scripts = new Set<string>();
  const pass = texts.map((t) => {
    const g = scriptGate(t, cfg.scripts);
    g.scripts.forEach((s) => scripts.add(s));
    return g.pass;
  });
  const toSend = texts.filter((_, i) => pass[i]);
  const base = { scripts: [...scripts].sort() };
  if (toSend.length === 0) return new DenseRun({ root, env, cfg, texts, base: { ...base, status: 'gated', gate: 'script' } });
  const run = new DenseRun({ root, env, cfg, texts, base: { ...base, status: pass.every(Boolean) ? 'skipped' : 'gated', gate: pass.every(Boolean) ? null : 'script' } });
  run.inFlight(embedQueryTexts(root, env, cfg, toSend, gate), pass);
  return run;
}

/** {@link startDense}, its query vectors arrived. */
export async function prepareDense(root: string, env: Env, texts: string[], gate: ConsentGate): Promise<DenseRun | null> {
  const run = await startDense(root, env, texts, gate);
  await run?.ready();
  return run;
}
