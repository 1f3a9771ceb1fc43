import { errorView, type InboxBackend } from './backend.js';
import { initialState, update, type Effect, type InboxState, type Msg } from './model.js';
import { PAGE_SIZE } from './window.js';

/**
 * Runs the model: applies each message, tells the view, and performs the
 * effects one at a time through the backend, feeding each answer back as a
 * message. One at a time because the core's calls are synchronous SQLite work
 * underneath (nothing runs in parallel anyway) and because order matters (the
 * proposal is shown before the review that asks y/n over it). A `show` that a
 * later `show` replaces before its turn is skipped: holding `j` down over 500
 * rows loads the one it stops on, not all 500.
 */
export class InboxController {
  #state: InboxState;
  readonly #backend: InboxBackend;
  readonly #listeners = new Set<(s: InboxState) => void>();
  readonly #pending: Effect[] = [];
  #running = false;
  #resolveClosed!: () => void;
  /** Settles when the person quits. */
  readonly closed: Promise<void>;
  /** Errors that were not typed (bugs), for the face to print after the screen is restored. */
  readonly internalErrors: unknown[] = [];

  constructor(backend: InboxBackend, size: { rows: number; cols: number }, now: number) {
    this.#backend = backend;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    const u = initialState(size, now);
    this.#state = u.state;
    this.#enqueue(u.effects);
  }

  get state(): InboxState {
    return this.#state;
  }

  subscribe(listener: (s: InboxState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  dispatch(msg: Msg): void {
    if (this.#state.quit) return;
    const u = update(this.#state, msg);
    this.#state = u.state;
    for (const l of this.#listeners) l(u.state);
    this.#enqueue(u.effects);
  }

  /** Resolves when every effect asked for so far has been performed (tests). */
  async idle(): Promise<void> {
    while (this.#running || this.#pending.length > 0) await new Promise((r) => setTimeout(r, 1));
  }

  #enqueue(effects: Effect[]): void {
    this.#pending.push(...effects);
    if (!this.#running && this.#pending.length > 0) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#pending.length > 0) {
        // let the view draw what the last message changed (a "reviewing…" line) before the
        // core's work blocks the loop, and let keys already typed arrive
        await new Promise((r) => setImmediate(r));
        const e = this.#pending.shift()!;
        // after quit only the quit itself runs (an action already running has finished: nothing is cut off midway)
        if (this.#state.quit && e.kind !== 'quit') continue;
        if (e.kind === 'show' && this.#pending.some((later) => later.kind === 'show')) continue;
        await this.#perform(e);
      }
    } finally {
      this.#running = false;
    }
  }

  async #perform(e: Effect): Promise<void> {
    const b = this.#backend;
    try {
      switch (e.kind) {
        case 'quit':
          this.#resolveClosed();
          return;
        case 'list': {
          const r = await b.list({ view: e.view, filter: e.filter, offset: e.page * PAGE_SIZE });
          return this.dispatch({ type: 'listed', generation: e.generation, page: e.page, total: r.total, rows: r.proposals });
        }
        case 'log': {
          const r = await b.log({ offset: e.page * PAGE_SIZE });
          return this.dispatch({ type: 'logged', generation: e.generation, page: e.page, total: r.total, rows: r.events });
        }
        case 'show':
          return this.dispatch({ type: 'shown', id: e.id, data: await b.show(e.id) });
        case 'review':
          return this.dispatch({ type: 'reviewed', id: e.id, purpose: e.purpose, data: await b.review(e.id) });
        case 'apply':
          return this.dispatch({ type: 'applied', id: e.id, data: await b.apply(e.id, e.review_hash) });
        case 'decline': {
          const r = await b.decline(e.id, e.reason);
          return this.dispatch({ type: 'declined', id: e.id, reason: r.proposal.reason });
        }
        case 'reopen':
          return this.dispatch({ type: 'reopened', id: e.id, data: await b.reopen(e.id) });
        case 'rollback':
          return this.dispatch({ type: 'rolled_back', id: e.id, data: await b.rollback(e.id) });
      }
    } catch (raised) {
      const error = errorView(raised);
      if (error.code === 'INTERNAL') this.internalErrors.push(raised);
      this.dispatch({ type: 'failed', action: e.kind as Exclude<Effect['kind'], 'quit'>, id: 'id' in e ? e.id : null, error });
    }
  }
}
