import type { ApplyResultView, AuditEvent, ProposalState, ProposalSummary, ProposeResult, ReviewResult, ShowResult } from '../../proposals/index.js';
import { clampPos, endPos, scrollBy, TOP, type BodyLine, type BodyPos } from './body-view.js';
import { ago, checkLines, diffTone, shortHash } from './format.js';
import { claimLines } from './evidence.js';
import { diffEmphasis } from '../../word-emphasis.js';
import type { Key } from './keys.js';
import { printable } from './text.js';
import { clamp, evictPages, followCursor, PAGE_SIZE, pageOf, pagesFor, rowAt } from './window.js';

/**
 * The terminal inbox as a value and a pure `update(state, msg) → {state,
 * effects}`: keys and answers from the core come in as messages; what to ask
 * the core goes out as effects, which the runtime (controller.ts) performs
 * through the operation table, exactly as the CLI would. Nothing here decides
 * anything about a proposal — whether it can be applied, what blocks it, what a
 * rollback contains: the core says, and the model shows it. What the model does
 * decide is presentation: which rows are on screen, which pages to load, which
 * keys mean what, and which action keys a proposal's state offers.
 */

/** Which proposals the queue tab lists (`s` cycles): `open` is pending or blocked. */
export const VIEWS = ['open', 'applied', 'declined', 'all'] as const;
export type View = (typeof VIEWS)[number];

export type Tab = 'queue' | 'history';
export type Screen = 'list' | 'detail' | 'help';

/** A list loaded a page at a time. */
export interface Paged<T> {
  /** Bumped when the query changes: answers to an older query are dropped. */
  generation: number;
  /** How many rows the query has; null until the first page arrived. */
  total: number | null;
  cursor: number;
  /** The first row on screen. */
  top: number;
  pages: Readonly<Record<number, readonly T[]>>;
  /** Pages asked for and not yet answered. */
  loading: readonly number[];
}

/** A typed error from the core, as shown. */
export interface ErrorView {
  code: string;
  message: string;
  hint?: string;
  /** The exit code the CLI would give it (75: stale, re-review). */
  exit: number;
}

export interface Detail {
  id: string;
  /** The proposal and its last review (`show`), or a review just run merged in; null while loading. */
  data: ShowResult | null;
  body: readonly BodyLine[];
  error: ErrorView | null;
  pos: BodyPos;
  /** How much of the diff the body shows (`m` shows more); absent: the first page. */
  page?: DiffPage;
}

/**
 * A large diff is paged (issue 20 §8): the first DIFF_PAGE_LINES lines, each cut
 * at DIFF_LINE_CHARS characters, with a line saying what is not shown and that
 * `m` shows more. Paging changes what is on screen only: apply still reviews
 * and applies the whole change, under the review hash of the whole change.
 */
export const DIFF_PAGE_LINES = 2000;
export const DIFF_LINE_CHARS = 4000;
export interface DiffPage {
  lines: number;
  chars: number;
}
export const FIRST_DIFF_PAGE: DiffPage = { lines: DIFF_PAGE_LINES, chars: DIFF_LINE_CHARS };
/** The next page after `p`: more lines, and lines cut four times later. */
export const moreDiff = (p: DiffPage): DiffPage => ({ lines: p.lines + DIFF_PAGE_LINES, chars: p.chars * 4 });

export type Mode =
  | { kind: 'normal' }
  | { kind: 'filter'; text: string }
  | { kind: 'reason'; id: string; text: string }
  /** The review of `id` is on screen; `y` applies exactly it. */
  | { kind: 'confirm'; id: string; review_hash: string }
  | { kind: 'busy'; label: string };

export interface Message {
  tone: 'ok' | 'bad' | 'info';
  text: string;
  hint?: string;
}

export interface InboxState {
  size: { rows: number; cols: number };
  /** Time of the last tick (ms), for ages; the model reads no clock. */
  now: number;
  tab: Tab;
  screen: Screen;
  /** The screen `?` was pressed on. */
  back: 'list' | 'detail';
  view: View;
  filter: string;
  queue: Paged<ProposalSummary>;
  history: Paged<AuditEvent>;
  detail: Detail | null;
  mode: Mode;
  message: Message | null;
  quit: boolean;
}

/** What the runtime does for the model; its answer comes back as a {@link Msg}. */
export type Effect =
  | { kind: 'list'; generation: number; page: number; view: View; filter: string }
  | { kind: 'log'; generation: number; page: number }
  | { kind: 'show'; id: string }
  | { kind: 'review'; id: string; purpose: 'apply' | 'recheck' }
  | { kind: 'apply'; id: string; review_hash: string }
  | { kind: 'decline'; id: string; reason: string }
  | { kind: 'reopen'; id: string }
  | { kind: 'rollback'; id: string }
  | { kind: 'quit' };

export type Msg =
  | { type: 'key'; key: Key }
  | { type: 'resize'; rows: number; cols: number }
  | { type: 'tick'; now: number }
  | { type: 'listed'; generation: number; page: number; total: number; rows: ProposalSummary[] }
  | { type: 'logged'; generation: number; page: number; total: number; rows: AuditEvent[] }
  | { type: 'shown'; id: string; data: ShowResult }
  | { type: 'reviewed'; id: string; purpose: 'apply' | 'recheck'; data: ReviewResult }
  | { type: 'applied'; id: string; data: ApplyResultView }
  | { type: 'declined'; id: string; reason: string }
  | { type: 'reopened'; id: string; data: ReviewResult }
  | { type: 'rolled_back'; id: string; data: ProposeResult }
  | { type: 'failed'; action: Exclude<Effect['kind'], 'quit'>; id: string | null; error: ErrorView };

export interface Update {
  state: InboxState;
  effects: Effect[];
}

// ---------------------------------------------------------------------------
// Layout: how many rows each part gets. Ink redraws the whole terminal when a
// frame is as tall as it, so a frame is one row shorter than the screen.

export interface Layout {
  width: number;
  height: number;
  /** Rows of the queue list (the list screen shows a preview under it). */
  listRows: number;
  previewRows: number;
  /** Rows of the history list (no preview). */
  historyRows: number;
  /** Rows of the proposal view's body. */
  bodyRows: number;
}

export function layout(size: { rows: number; cols: number }): Layout {
  const height = Math.max(10, size.rows - 1);
  const width = Math.max(20, size.cols);
  // header, column header, separator, message (2), help
  const free = height - 6;
  const listRows = clamp(Math.round(free * 0.4), 2, Math.max(2, free - 2));
  return { width, height, listRows, previewRows: Math.max(1, free - listRows), historyRows: Math.max(2, height - 5), bodyRows: Math.max(2, height - 4) };
}

// ---------------------------------------------------------------------------

const emptyPaged = <T>(generation = 0): Paged<T> => ({ generation, total: null, cursor: 0, top: 0, pages: {}, loading: [] });

export function initialState(size: { rows: number; cols: number }, now: number): Update {
  const state: InboxState = {
    size,
    now,
    tab: 'queue',
    screen: 'list',
    back: 'list',
    view: 'open',
    filter: '',
    queue: { ...emptyPaged<ProposalSummary>(), loading: [0] },
    history: emptyPaged<AuditEvent>(),
    detail: null,
    mode: { kind: 'normal' },
    message: null,
    quit: false,
  };
  return { state, effects: [{ kind: 'list', generation: 0, page: 0, view: 'open', filter: '' }] };
}

/** The proposal the action keys act on: the one on screen, else the selected row's (or the selected event's). */
export function targetId(s: InboxState): string | null {
  if (s.screen === 'detail' && s.detail) return s.detail.id;
  if (s.tab === 'queue') return rowAt(s.queue.pages, s.queue.cursor)?.id ?? null;
  return rowAt(s.history.pages, s.history.cursor)?.proposal ?? null;
}

/** The state of the target as last seen (its view, else its list row). */
export function targetState(s: InboxState): ProposalState | null {
  const id = targetId(s);
  if (id === null) return null;
  if (s.detail?.id === id && s.detail.data) return s.detail.data.proposal.state;
  const row = s.tab === 'queue' ? rowAt(s.queue.pages, s.queue.cursor) : undefined;
  return row?.id === id ? row.state : null;
}

/** Which action keys a state offers (the core enforces the same; this keeps doomed keys off the help line). */
export function actionsFor(state: ProposalState | null): Array<'a' | 'x' | 'r' | 'u' | 'o'> {
  switch (state) {
    case 'pending':
    case 'blocked':
      return ['a', 'x', 'r'];
    case 'declined':
      return ['o', 'r'];
    case 'undone':
      return ['o'];
    case 'applied':
      return ['u'];
    case 'recovery':
      return ['r'];
    case null:
      return [];
  }
}

/** The body of the proposal view: facts, checks, then the diff, each line printable. */
export function detailBody(d: ShowResult, now: number, page: DiffPage = FIRST_DIFF_PAGE): BodyLine[] {
  const p = d.proposal;
  const lines: BodyLine[] = [];
  const add = (text: string, tone: BodyLine['tone'] = 'plain') => lines.push({ text: printable(text), tone });
  const facts = [`by ${p.agent ?? 'operator'}`, `proposed ${ago(p.created_at, now)}`];
  if (p.session) facts.push(`session ${p.session}`);
  if (p.scenario) facts.push(`scenario ${p.scenario}`);
  if (p.rollback_of) facts.push(`rolls back ${p.rollback_of}`);
  // proposed is not done: only an applied rollback has rolled it back
  if (p.rolled_back_by) facts.push(p.rollback_state === 'applied' ? `rolled back by ${p.rolled_back_by}` : `rollback proposed as ${p.rolled_back_by} (${p.rollback_state ?? '?'})`);
  add(facts.join(' · '), 'dim');
  if (p.summary) for (const l of p.summary.split('\n')) add(l);
  for (const c of claimLines(d)) add(c.text, c.tone);
  if (p.declined_reason) add(`declined: ${p.declined_reason}`, 'warn');
  if (p.applied_at) add(`applied ${ago(p.applied_at, now)} as ${p.operation_id}${p.changed_paths?.length ? `: ${p.changed_paths.join(', ')}` : ''}`, 'info');
  if (p.undone_by) add(`undone ${p.undone_at ? ago(p.undone_at, now) : ''} by ${p.undone_by}: the vault no longer holds this change (o reopens it)`, 'warn');
  add(`review ${shortHash(d.review_hash)}${p.reviewed_at ? ` · checked ${ago(p.reviewed_at, now)}` : ' · not reviewed yet'}`, 'dim');
  for (const c of checkLines(d.checks)) add(c.text, c.tone);
  add('');
  const diff = d.diff.endsWith('\n') ? d.diff.slice(0, -1) : d.diff;
  if (diff === '') {
    add('(no diff)', 'dim');
    return lines;
  }
  // line by line up to the page, never splitting (nor escaping) the whole diff
  let at = 0;
  let shown = 0;
  let cut = 0;
  const first = lines.length;
  while (at <= diff.length && shown < page.lines) {
    const nl = diff.indexOf('\n', at);
    const end = nl === -1 ? diff.length : nl;
    const l = diff.slice(at, Math.min(end, at + page.chars));
    if (end - at > page.chars) {
      cut++;
      lines.push({ text: printable(l) + ` … (${end - at - page.chars} more characters)`, tone: diffTone(l) });
    } else add(l, diffTone(l));
    shown++;
    at = end + 1;
  }
  // the changed words of each changed line, found on the text as shown (a cut line is too long to get any)
  const diffLines = lines.slice(first);
  diffEmphasis(diffLines.map((x) => x.text)).forEach((em, k) => {
    if (em) diffLines[k]!.em = em.map(([s0, e]) => [s0 + 1, e + 1] as const);
  });
  let rest = 0;
  for (let i = at - 1; i < diff.length && i !== -1; i = diff.indexOf('\n', i + 1)) rest++;
  if (rest > 0 || cut > 0) {
    const what = [rest > 0 ? `${rest} more diff line${rest === 1 ? '' : 's'} not shown` : '', cut > 0 ? `${cut} long line${cut === 1 ? '' : 's'} cut` : ''].filter(Boolean).join(', ');
    add(`… ${what}: m shows more. Apply reviews and applies the whole change, shown or not.`, 'warn');
  }
  return lines;
}

// ---------------------------------------------------------------------------

function listHeight(s: InboxState, tab: Tab): number {
  const l = layout(s.size);
  return tab === 'queue' ? l.listRows : l.historyRows;
}

function listEffect(s: InboxState, page: number): Effect {
  return { kind: 'list', generation: s.queue.generation, page, view: s.view, filter: s.filter };
}

/** Ask for the pages the window needs that are neither loaded nor on their way; drop far ones. */
function fetchWindow(s: InboxState, tab: Tab, refresh = false): Update {
  const paged: Paged<unknown> = tab === 'queue' ? s.queue : s.history;
  const total = paged.total ?? 0;
  const needed = [...new Set([...pagesFor(paged.top, listHeight(s, tab), total), pageOf(paged.cursor)])];
  const want = (refresh ? [...new Set([...needed, ...Object.keys(paged.pages).map(Number)])] : needed).filter(
    (p) => !paged.loading.includes(p) && (refresh || !(p in paged.pages)) && (paged.total === null || p * PAGE_SIZE < Math.max(1, total)),
  );
  const next = { ...paged, pages: evictPages(paged.pages, needed, pageOf(paged.cursor)), loading: [...paged.loading, ...want] };
  const state = tab === 'queue' ? { ...s, queue: next as Paged<ProposalSummary> } : { ...s, history: next as Paged<AuditEvent> };
  const effects = want.map((page): Effect => (tab === 'queue' ? listEffect(state, page) : { kind: 'log', generation: paged.generation, page }));
  return { state, effects };
}

/**
 * Load the view of the selected proposal when it is not the one shown (lazily:
 * only the selected one), or when its list row says it changed since. On the
 * proposal view the shown proposal stays, and is only reloaded when it changed.
 */
function followSelection(s: InboxState): Update {
  if (s.tab !== 'queue') return { state: s, effects: [] };
  const row = rowAt(s.queue.pages, s.queue.cursor);
  if (!row) return { state: s, effects: [] };
  const same = s.detail?.id === row.id;
  const stale = same && s.detail!.data !== null && s.detail!.data.proposal.updated_at !== row.updated_at;
  if (s.screen === 'detail' || same) return { state: s, effects: stale ? [{ kind: 'show', id: row.id }] : [] };
  return { state: { ...s, detail: { id: row.id, data: null, body: [], error: null, pos: TOP } }, effects: [{ kind: 'show', id: row.id }] };
}

function chain(first: Update, ...steps: Array<(s: InboxState) => Update>): Update {
  let { state, effects } = first;
  for (const step of steps) {
    const u = step(state);
    state = u.state;
    effects = [...effects, ...u.effects];
  }
  return { state, effects };
}

function moveCursor(s: InboxState, tab: Tab, to: (p: Paged<unknown>, height: number) => number): Update {
  const paged = tab === 'queue' ? s.queue : s.history;
  if (paged.total === null || paged.total === 0) return { state: s, effects: [] };
  const height = listHeight(s, tab);
  const cursor = clamp(to(paged, height), 0, paged.total - 1);
  const top = followCursor(paged.top, cursor, height, paged.total);
  const next = { ...paged, cursor, top };
  const state = tab === 'queue' ? { ...s, queue: next as Paged<ProposalSummary> } : { ...s, history: next as Paged<AuditEvent> };
  return chain({ state, effects: [] }, (x) => fetchWindow(x, tab), followSelection);
}

function resetQueue(s: InboxState, change: Partial<Pick<InboxState, 'view' | 'filter'>>): Update {
  const state = { ...s, ...change, queue: emptyPaged<ProposalSummary>(s.queue.generation + 1), detail: s.screen === 'detail' ? s.detail : null };
  return fetchWindow(state, 'queue');
}

/** Reload what is on screen after an action changed it: the loaded pages of both lists, and the proposal shown. */
function refreshAll(s: InboxState, showId: string | null): Update {
  let u = fetchWindow(s, 'queue', true);
  if (u.state.history.total !== null) u = chain(u, (x) => fetchWindow(x, 'history', true));
  if (showId !== null) u = { state: u.state, effects: [...u.effects, { kind: 'show', id: showId }] };
  return u;
}

function setDetail(s: InboxState, id: string, data: ShowResult, keepPos: boolean): InboxState {
  const page = s.detail?.id === id ? s.detail.page : undefined;
  const body = detailBody(data, s.now, page);
  const l = layout(s.size);
  const pos = keepPos && s.detail?.id === id ? clampPos(body, s.detail.pos, l.width, l.bodyRows) : TOP;
  return { ...s, detail: { id, data, body, error: null, pos, ...(page ? { page } : {}) } };
}

/** A review's answer laid over the proposal's facts (a review reports checks, files, diff and hash, not the title). */
function withReview(s: InboxState, id: string, r: ReviewResult): ShowResult | null {
  const base = s.detail?.id === id ? s.detail.data : null;
  if (!base) return null;
  return {
    ...base,
    proposal: { ...base.proposal, state: r.proposal.state, reviewed_at: new Date(s.now).toISOString() },
    checks: r.checks,
    files: r.files,
    diff: r.diff,
    review_hash: r.review_hash,
    ...(r.evidence ? { evidence: r.evidence } : {}),
  };
}

function errorMessage(e: ErrorView, retry: boolean): Message {
  // the key to press first: the core's hint may be longer than the row
  return { tone: 'bad', text: `error [${e.code}]: ${e.message}`, hint: [retry ? 'r: review it again' : undefined, e.hint].filter(Boolean).join(' · ') || undefined };
}

// ---------------------------------------------------------------------------

export function update(s: InboxState, msg: Msg): Update {
  switch (msg.type) {
    case 'key':
      return onKey(s, msg.key);
    case 'resize': {
      const state = { ...s, size: { rows: msg.rows, cols: msg.cols } };
      const l = layout(state.size);
      const q = { ...state.queue, top: followCursor(state.queue.top, state.queue.cursor, l.listRows, state.queue.total ?? 0) };
      const h = { ...state.history, top: followCursor(state.history.top, state.history.cursor, l.historyRows, state.history.total ?? 0) };
      const d = state.detail ? { ...state.detail, pos: clampPos(state.detail.body, state.detail.pos, l.width, l.bodyRows) } : null;
      return chain({ state: { ...state, queue: q, history: h, detail: d }, effects: [] }, (x) => fetchWindow(x, x.tab));
    }
    case 'tick': {
      const state = { ...s, now: msg.now };
      if (state.mode.kind !== 'normal') return { state, effects: [] };
      return fetchWindow(state, state.tab, true);
    }
    case 'listed': {
      if (msg.generation !== s.queue.generation) return { state: s, effects: [] };
      const before = rowAt(s.queue.pages, s.queue.cursor)?.id;
      const total = msg.total;
      const pages = { ...s.queue.pages, [msg.page]: msg.rows };
      let cursor = clamp(s.queue.cursor, 0, Math.max(0, total - 1));
      // Keep the selection on the same proposal when new ones pushed it down (or it moved up).
      const at = before === undefined ? -1 : msg.rows.findIndex((r) => r.id === before);
      if (at >= 0) cursor = msg.page * PAGE_SIZE + at;
      const height = layout(s.size).listRows;
      const queue: Paged<ProposalSummary> = { ...s.queue, total, pages, cursor, top: followCursor(s.queue.top, cursor, height, total), loading: s.queue.loading.filter((p) => p !== msg.page) };
      let state: InboxState = { ...s, queue };
      if (total === 0 && state.screen !== 'detail') state = { ...state, detail: null };
      return chain({ state, effects: [] }, (x) => fetchWindow(x, 'queue'), followSelection);
    }
    case 'logged': {
      if (msg.generation !== s.history.generation) return { state: s, effects: [] };
      const total = msg.total;
      const cursor = clamp(s.history.cursor, 0, Math.max(0, total - 1));
      const history: Paged<AuditEvent> = {
        ...s.history,
        total,
        cursor,
        top: followCursor(s.history.top, cursor, layout(s.size).historyRows, total),
        pages: { ...s.history.pages, [msg.page]: msg.rows },
        loading: s.history.loading.filter((p) => p !== msg.page),
      };
      return fetchWindow({ ...s, history }, 'history');
    }
    case 'shown': {
      if (s.detail?.id !== msg.id) return { state: s, effects: [] };
      // While y/n is asked, the screen keeps the review the question is about.
      if (s.mode.kind === 'confirm' && s.mode.id === msg.id) return { state: s, effects: [] };
      return { state: setDetail(s, msg.id, msg.data, true), effects: [] };
    }
    case 'reviewed': {
      const data = withReview(s, msg.id, msg.data);
      let state = data ? setDetail(s, msg.id, data, msg.purpose === 'recheck') : s;
      const blocking = [...new Set(msg.data.checks.filter((c) => !c.ok && c.severity === 'block').map((c) => c.name))];
      if (msg.purpose === 'apply') {
        // y must answer the review on screen: without the proposal's view there is nothing to show, so no prompt
        if (!data) return { state: { ...state, mode: { kind: 'normal' }, message: { tone: 'bad', text: `${msg.id} could not be shown; not applied` } }, effects: [] };
        if (msg.data.review_hash === null) {
          state = { ...state, mode: { kind: 'normal' }, message: { tone: 'bad', text: `${msg.id} cannot be applied: ${blocking.join(', ') || 'it could not be planned'} (the review has no hash)`, hint: 'The checks above say why.' } };
          return refreshAll(state, null);
        }
        return { state: { ...state, screen: 'detail', mode: { kind: 'confirm', id: msg.id, review_hash: msg.data.review_hash }, message: null }, effects: [] };
      }
      state = { ...state, mode: { kind: 'normal' }, message: { tone: 'info', text: `reviewed ${msg.id}: ${msg.data.proposal.state}${blocking.length ? ` by ${blocking.join(', ')}` : ''} · review ${shortHash(msg.data.review_hash)}` } };
      return refreshAll(state, null);
    }
    case 'applied': {
      const r = msg.data;
      const state: InboxState = { ...s, mode: { kind: 'normal' }, message: { tone: 'ok', text: `${r.replayed ? 'already applied' : 'applied'} ${r.proposal.id} as ${r.operation_id}: ${r.changed_paths.join(', ') || 'no files changed'}` } };
      return refreshAll(state, s.detail?.id === msg.id ? msg.id : null);
    }
    case 'declined': {
      const state: InboxState = { ...s, mode: { kind: 'normal' }, message: { tone: 'ok', text: `declined ${msg.id}: ${msg.reason}` } };
      return refreshAll(state, s.detail?.id === msg.id ? msg.id : null);
    }
    case 'reopened': {
      const state: InboxState = { ...s, mode: { kind: 'normal' }, message: { tone: 'ok', text: `reopened ${msg.id}: ${msg.data.proposal.state}` } };
      return refreshAll(state, s.detail?.id === msg.id ? msg.id : null);
    }
    case 'rolled_back': {
      const p = msg.data.proposal;
      const state: InboxState = {
        ...s,
        mode: { kind: 'normal' },
        message: { tone: 'ok', text: `${p.id} proposes the inverse of ${msg.id} (${p.state}): review and apply it like any other`, hint: p.state === 'blocked' ? 'It is blocked: a file changed since the apply (see its checks).' : undefined },
      };
      return refreshAll(state, s.detail?.id === msg.id ? msg.id : null);
    }
    case 'failed': {
      let state: InboxState = { ...s, mode: { kind: 'normal' } };
      if (msg.action === 'list') state = { ...state, queue: { ...state.queue, loading: [] } };
      if (msg.action === 'log') state = { ...state, history: { ...state.history, loading: [] } };
      if (msg.action === 'show' && state.detail?.id === msg.id) state = { ...state, detail: { ...state.detail, error: msg.error } };
      const retry = msg.error.exit === 75 && msg.id !== null && (msg.action === 'apply' || msg.action === 'review');
      state = { ...state, message: errorMessage(msg.error, retry) };
      // After a refused apply the proposal's state and review may have changed (the core saves what it found).
      return msg.action === 'apply' ? refreshAll(state, state.detail?.id === msg.id ? msg.id : null) : { state, effects: [] };
    }
  }
}

// ---------------------------------------------------------------------------
// Keys

const isChar = (k: Key, c: string) => k.kind === 'char' && k.char === c;
const isNamed = (k: Key, n: string) => k.kind === 'named' && k.name === n;

function onKey(s: InboxState, k: Key): Update {
  if (k.kind === 'ctrl' && k.char === 'c') return { state: { ...s, quit: true }, effects: [{ kind: 'quit' }] };
  switch (s.mode.kind) {
    case 'busy':
      return { state: s, effects: [] };
    case 'filter':
      return onTextKey(s, k, s.mode.text, {
        edit: (text) => ({ ...s, mode: { kind: 'filter', text } }),
        submit: (text) => resetQueue({ ...s, mode: { kind: 'normal' }, screen: 'list', message: null }, { filter: text.trim() }),
        cancel: () => ({ state: { ...s, mode: { kind: 'normal' } }, effects: [] }),
      });
    case 'reason': {
      const id = s.mode.id;
      return onTextKey(s, k, s.mode.text, {
        edit: (text) => ({ ...s, mode: { kind: 'reason', id, text } }),
        // An empty reason goes to the core too: it refuses it with its own typed error.
        submit: (text) => ({ state: { ...s, mode: { kind: 'busy', label: `declining ${id}…` }, message: null }, effects: [{ kind: 'decline', id, reason: text }] }),
        cancel: () => ({ state: { ...s, mode: { kind: 'normal' }, message: { tone: 'info', text: `${id} not declined` } }, effects: [] }),
      });
    }
    case 'confirm': {
      const { id, review_hash } = s.mode;
      if (isChar(k, 'y') || isChar(k, 'Y')) return { state: { ...s, mode: { kind: 'busy', label: `applying ${id}…` }, message: null }, effects: [{ kind: 'apply', id, review_hash }] };
      if (isChar(k, 'n') || isChar(k, 'N') || isNamed(k, 'escape') || isChar(k, 'q')) return { state: { ...s, mode: { kind: 'normal' }, message: { tone: 'info', text: `${id} not applied` } }, effects: [] };
      // the review on screen can be scrolled before answering
      return s.screen === 'detail' ? onDetailMove(s, k) ?? { state: s, effects: [] } : { state: s, effects: [] };
    }
    case 'normal':
      return onNormalKey(s, k);
  }
}

function onTextKey(s: InboxState, k: Key, text: string, on: { edit: (t: string) => InboxState; submit: (t: string) => Update; cancel: () => Update }): Update {
  if (k.kind === 'char') return { state: on.edit(text + k.char), effects: [] };
  if (isNamed(k, 'backspace') || isNamed(k, 'delete')) return { state: on.edit([...text].slice(0, -1).join('')), effects: [] };
  if (k.kind === 'ctrl' && k.char === 'u') return { state: on.edit(''), effects: [] };
  if (isNamed(k, 'enter')) return on.submit(text);
  if (isNamed(k, 'escape')) return on.cancel();
  return { state: s, effects: [] };
}

/** Scrolling the proposal view; undefined when `k` is not a scrolling key. */
function onDetailMove(s: InboxState, k: Key): Update | undefined {
  const d = s.detail;
  if (!d) return undefined;
  const l = layout(s.size);
  const page = Math.max(1, l.bodyRows - 1);
  let pos: BodyPos | undefined;
  if (isChar(k, 'j') || isNamed(k, 'down')) pos = scrollBy(d.body, d.pos, 1, l.width, l.bodyRows);
  else if (isChar(k, 'k') || isNamed(k, 'up')) pos = scrollBy(d.body, d.pos, -1, l.width, l.bodyRows);
  else if (isChar(k, ' ') || isNamed(k, 'pagedown') || (k.kind === 'ctrl' && (k.char === 'f' || k.char === 'd'))) pos = scrollBy(d.body, d.pos, k.kind === 'ctrl' && k.char === 'd' ? Math.ceil(page / 2) : page, l.width, l.bodyRows);
  else if (isNamed(k, 'pageup') || isChar(k, 'b') || (k.kind === 'ctrl' && (k.char === 'b' || k.char === 'u'))) pos = scrollBy(d.body, d.pos, k.kind === 'ctrl' && k.char === 'u' ? -Math.ceil(page / 2) : -page, l.width, l.bodyRows);
  else if (isChar(k, 'g') || isNamed(k, 'home')) pos = TOP;
  else if (isChar(k, 'G') || isNamed(k, 'end')) pos = endPos(d.body, l.width, l.bodyRows);
  else if (isChar(k, 'm') && d.data) {
    // the next page of a paged diff, where the reader is
    const page = moreDiff(d.page ?? FIRST_DIFF_PAGE);
    const body = detailBody(d.data, s.now, page);
    return { state: { ...s, detail: { ...d, page, body, pos: clampPos(body, d.pos, l.width, l.bodyRows) } }, effects: [] };
  }
  return pos ? { state: { ...s, detail: { ...d, pos } }, effects: [] } : undefined;
}

function onListMove(s: InboxState, k: Key): Update | undefined {
  const tab = s.tab;
  const by = (n: number) => moveCursor(s, tab, (p) => p.cursor + n);
  const page = tab === 'queue' ? layout(s.size).listRows : layout(s.size).historyRows;
  if (isChar(k, 'j') || isNamed(k, 'down')) return by(1);
  if (isChar(k, 'k') || isNamed(k, 'up')) return by(-1);
  if (isChar(k, ' ') || isNamed(k, 'pagedown') || (k.kind === 'ctrl' && k.char === 'f')) return by(page);
  if (isNamed(k, 'pageup') || (k.kind === 'ctrl' && k.char === 'b')) return by(-page);
  if (k.kind === 'ctrl' && k.char === 'd') return by(Math.ceil(page / 2));
  if (k.kind === 'ctrl' && k.char === 'u') return by(-Math.ceil(page / 2));
  if (isChar(k, 'g') || isNamed(k, 'home')) return moveCursor(s, tab, () => 0);
  if (isChar(k, 'G') || isNamed(k, 'end')) return moveCursor(s, tab, (p) => (p.total ?? 1) - 1);
  return undefined;
}

function openDetail(s: InboxState): Update {
  const id = targetId(s);
  if (id === null) return { state: s, effects: [] };
  if (s.detail?.id === id) return { state: { ...s, screen: 'detail' }, effects: s.detail.data ? [] : [{ kind: 'show', id }] };
  return { state: { ...s, screen: 'detail', detail: { id, data: null, body: [], error: null, pos: TOP } }, effects: [{ kind: 'show', id }] };
}

function onNormalKey(s: InboxState, k: Key): Update {
  if (s.screen === 'help') return { state: { ...s, screen: s.back }, effects: [] };
  if (isChar(k, 'q')) return { state: { ...s, quit: true }, effects: [{ kind: 'quit' }] };
  if (isChar(k, '?')) return { state: { ...s, screen: 'help', back: s.screen === 'detail' ? 'detail' : 'list' }, effects: [] };
  if (isNamed(k, 'tab')) {
    const tab: Tab = s.tab === 'queue' ? 'history' : 'queue';
    const state: InboxState = { ...s, tab, screen: 'list', message: null };
    return tab === 'history' && s.history.total === null && s.history.loading.length === 0 ? fetchWindow(state, 'history') : chain({ state, effects: [] }, (x) => fetchWindow(x, tab), followSelection);
  }
  if (k.kind === 'ctrl' && k.char === 'l') return refreshAll({ ...s, message: null }, s.screen === 'detail' && s.detail ? s.detail.id : null);
  if (s.tab === 'queue' && isChar(k, 's')) {
    const view = VIEWS[(VIEWS.indexOf(s.view) + 1) % VIEWS.length]!;
    return resetQueue({ ...s, screen: 'list', message: null }, { view });
  }
  if (s.tab === 'queue' && isChar(k, '/')) return { state: { ...s, mode: { kind: 'filter', text: s.filter }, message: null }, effects: [] };

  // the action keys: each is one operation of the table, on the proposal on screen or selected
  const id = targetId(s);
  if (k.kind === 'char' && 'axruo'.includes(k.char) && k.char.length === 1) {
    if (id === null) return { state: { ...s, message: { tone: 'info', text: 'no proposal selected' } }, effects: [] };
    const state = targetState(s);
    if (state === null) {
      // a history row names a proposal, not its state: the keys work once it is open
      if (s.tab === 'history' && s.screen === 'list') return { state: { ...s, message: { tone: 'info', text: `enter opens ${id}; its keys work there` } }, effects: [] };
      return { state: s, effects: [] }; // still loading: the key means nothing yet
    }
    const offered = actionsFor(state);
    const key = k.char as (typeof offered)[number];
    if (!offered.includes(key)) {
      const what = { a: 'apply', x: 'decline', r: 'review', u: 'roll back', o: 'reopen' }[key];
      return { state: { ...s, message: { tone: 'info', text: `${id} is ${state}: nothing to ${what}`, hint: offered.length ? `keys for it: ${offered.join(' ')}` : undefined } }, effects: [] };
    }
    switch (key) {
      case 'a':
        return { state: { ...s, screen: 'detail', detail: s.detail?.id === id ? s.detail : { id, data: null, body: [], error: null, pos: TOP }, mode: { kind: 'busy', label: `reviewing ${id}…` }, message: null }, effects: [...(s.detail?.id === id ? [] : [{ kind: 'show', id } as Effect]), { kind: 'review', id, purpose: 'apply' }] };
      case 'x':
        return { state: { ...s, mode: { kind: 'reason', id, text: '' }, message: null }, effects: [] };
      case 'r':
        return { state: { ...s, mode: { kind: 'busy', label: `reviewing ${id}…` }, message: null }, effects: [{ kind: 'review', id, purpose: 'recheck' }] };
      case 'u':
        return { state: { ...s, mode: { kind: 'busy', label: `proposing the rollback of ${id}…` }, message: null }, effects: [{ kind: 'rollback', id }] };
      case 'o':
        return { state: { ...s, mode: { kind: 'busy', label: `reopening ${id}…` }, message: null }, effects: [{ kind: 'reopen', id }] };
    }
  }

  if (s.screen === 'detail') {
    if (isNamed(k, 'escape') || isChar(k, 'h') || isNamed(k, 'left') || isNamed(k, 'backspace') || isNamed(k, 'delete') || isNamed(k, 'enter')) {
      return chain({ state: { ...s, screen: 'list' }, effects: [] }, followSelection);
    }
    // J / K: the next or previous proposal of the list, without leaving the view
    if (isChar(k, 'J') || isChar(k, 'K')) {
      const moved = moveCursor({ ...s, screen: 'list' }, s.tab, (p) => p.cursor + (isChar(k, 'J') ? 1 : -1));
      return chain(moved, openDetail);
    }
    return onDetailMove(s, k) ?? { state: s, effects: [] };
  }

  if (isNamed(k, 'enter') || isChar(k, 'l') || isNamed(k, 'right')) return openDetail(s);
  if (isNamed(k, 'escape') && s.tab === 'queue' && s.filter !== '') return resetQueue({ ...s, message: null }, { filter: '' });
  return onListMove(s, k) ?? { state: s, effects: [] };
}
