import type { AuditEvent, ProposalSummary } from '../../proposals/index.js';
import { isRollbackProposed } from '../../proposals/types.js';
import { TOP, visibleRows, type BodyRow } from './body-view.js';
import { age, checkSummary, eventDetail, shortHash, stateTone, type Tone } from './format.js';
import { actionsFor, layout, targetState, type InboxState, type Layout } from './model.js';
import { cellWidth, fit, printable, truncate } from './text.js';
import { rowAt } from './window.js';

/**
 * The frame: the state drawn as exactly `layout.height` lines of coloured
 * segments, each line exactly `layout.width` cells wide. Pure, so tests read
 * the screen an 80×24 terminal would show without starting one; view.tsx only
 * hands these lines to Ink.
 */

export interface Segment {
  text: string;
  tone: Tone;
  inverse?: boolean;
  bold?: boolean;
}
export type Line = Segment[];

const seg = (text: string, tone: Tone = 'plain', extra: Partial<Segment> = {}): Segment => ({ text, tone, ...extra });

/** A line of `width` cells: the left segments, then the right text flush right when it fits. */
function line(width: number, left: Segment[], right?: Segment): Line {
  const out: Segment[] = [];
  let used = 0;
  for (const s of left) {
    const room = width - used;
    if (room <= 0) break;
    const t = truncate(s.text, room);
    out.push({ ...s, text: t });
    used += cellWidth(t);
  }
  if (right && used + cellWidth(right.text) + 1 <= width) {
    out.push(seg(' '.repeat(width - used - cellWidth(right.text))), right);
    used = width;
  }
  if (used < width) out.push(seg(' '.repeat(width - used), out[out.length - 1]?.inverse ? out[out.length - 1]!.tone : 'plain', { inverse: out[out.length - 1]?.inverse ?? false }));
  return out;
}

const blank = (width: number): Line => [seg(' '.repeat(width))];

/** A body row as segments: the changed words of a changed diff line in reverse video (as git's diff-highlight shows them). */
function rowSegments(r: BodyRow): Segment[] {
  if (!r.em) return [seg(r.text, r.tone)];
  const out: Segment[] = [];
  let at = 0;
  for (const [s, e] of r.em) {
    if (s > at) out.push(seg(r.text.slice(at, s), r.tone));
    out.push(seg(r.text.slice(s, e), r.tone, { inverse: true }));
    at = e;
  }
  if (at < r.text.length) out.push(seg(r.text.slice(at), r.tone));
  return out;
}

/** Column widths of the queue list for a screen width; narrow screens drop agent, files, then checks. */
export function queueColumns(width: number, idWidth: number): { id: number; state: number; title: number; agent: number; files: number; age: number; checks: number } {
  const agent = width >= 72 ? 10 : 0;
  const files = width >= 64 ? 3 : 0;
  const checks = width >= 52 ? 12 : 0;
  const fixed = 2 + idWidth + 1 + 8 + 1 + (agent ? agent + 1 : 0) + (files ? files + 1 : 0) + 4 + 1 + checks;
  return { id: idWidth, state: 8, title: Math.max(8, width - fixed - 1), agent, files, age: 4, checks };
}

function queueRow(p: ProposalSummary, cols: ReturnType<typeof queueColumns>, width: number, selected: boolean, now: number): Line {
  const inv = { inverse: selected };
  const check = checkSummary(p);
  const parts: Segment[] = [
    seg(selected ? '> ' : '  ', 'accent', inv),
    seg(fit(p.id, cols.id) + ' ', 'plain', inv),
    seg(fit(p.state, cols.state) + ' ', stateTone(p.state), inv),
    seg(fit(printable(p.title), cols.title) + ' ', 'plain', { ...inv, bold: true }),
  ];
  if (cols.agent) parts.push(seg(fit(printable(p.agent ?? '-'), cols.agent) + ' ', 'dim', inv));
  if (cols.files) parts.push(seg(fit(`${p.files.length}f`, cols.files) + ' ', 'dim', inv));
  parts.push(seg(fit(age(p.created_at, now), cols.age) + ' ', 'dim', inv));
  if (cols.checks) parts.push(seg(fit(check.text, cols.checks), check.tone, inv));
  return line(width, parts);
}

function historyRow(e: AuditEvent, width: number, selected: boolean, now: number): Line {
  const inv = { inverse: selected };
  // an old log's `rolled_back` written at proposal time reads as what it was (format.ts)
  const name = isRollbackProposed(e) ? 'rollback_proposed' : e.event;
  const tone: Tone = name === 'applied' ? 'info' : name === 'declined' ? 'warn' : name === 'recovery' ? 'bad' : name === 'undone' || name === 'rolled_back' ? 'warn' : 'plain';
  return line(width, [
    seg(selected ? '> ' : '  ', 'accent', inv),
    seg(fit(age(e.at, now), 4) + ' ', 'dim', inv),
    seg(fit(name, 17) + ' ', tone, inv),
    seg(fit(e.proposal ?? '-', 8) + ' ', 'plain', inv),
    seg(fit(printable(e.actor), 10) + ' ', 'dim', inv),
    seg(printable(eventDetail(e)), 'plain', inv),
  ]);
}

function header(s: InboxState, l: Layout): Line {
  const tabs: Segment[] = [
    seg(' vaultgate inbox ', 'title', { inverse: true, bold: true }),
    seg(' '),
    seg(' Queue ', s.tab === 'queue' ? 'accent' : 'dim', { inverse: s.tab === 'queue' }),
    seg(' '),
    seg(' History ', s.tab === 'history' ? 'accent' : 'dim', { inverse: s.tab === 'history' }),
  ];
  let right: string;
  if (s.tab === 'queue') {
    const total = s.queue.total === null ? '…' : String(s.queue.total);
    right = `${s.view}: ${total}${s.filter ? ` · /${printable(s.filter)}` : ''}`;
  } else right = `events: ${s.history.total ?? '…'}`;
  return line(l.width, tabs, seg(right + ' ', 'dim'));
}

function detailHeader(s: InboxState, l: Layout): Line {
  const d = s.detail;
  if (!d) return blank(l.width);
  const p = d.data?.proposal;
  const parts: Segment[] = [seg(` ${d.id} `, 'title', { inverse: true, bold: true }), seg(' ')];
  if (p) parts.push(seg(p.state + ' ', stateTone(p.state), { bold: true }), seg(printable(p.title), 'plain', { bold: true }));
  const right = d.body.length ? `${Math.min(d.body.length, d.pos.line + 1)}/${d.body.length} ` : '';
  return line(l.width, parts, seg(right, 'dim'));
}

/** The two message rows: a prompt while one is open, else the last result or error and its hint. */
function messageRows(s: InboxState, l: Layout): [Line, Line] {
  const m = s.mode;
  switch (m.kind) {
    case 'filter':
      return [line(l.width, [seg('filter: ', 'accent', { bold: true }), seg(printable(m.text) + '_')]), line(l.width, [seg('enter: filter · esc: cancel · matches id, title, agent and paths; empty: all', 'dim')])];
    case 'reason':
      return [line(l.width, [seg(`decline ${m.id}, reason: `, 'warn', { bold: true }), seg(printable(m.text) + '_')]), line(l.width, [seg('enter: decline with this reason (kept in the log for the agent) · esc: cancel', 'dim')])];
    case 'confirm':
      return [
        line(l.width, [seg(`apply ${m.id} as reviewed above (review ${shortHash(m.review_hash)})? `, 'warn', { bold: true }), seg('y/n', 'accent', { bold: true })]),
        line(l.width, [seg('y: apply exactly this review (re-checked under the vault lock) · n: cancel · j/k: scroll', 'dim')]),
      ];
    case 'busy':
      return [line(l.width, [seg(m.label, 'accent')]), blank(l.width)];
    case 'normal': {
      const msg = s.message;
      if (!msg) return [blank(l.width), blank(l.width)];
      const tone: Tone = msg.tone === 'ok' ? 'good' : msg.tone === 'bad' ? 'bad' : 'info';
      return [line(l.width, [seg(printable(msg.text), tone, { bold: true })]), line(l.width, [seg(msg.hint ? printable(msg.hint) : '', 'dim')])];
    }
  }
}

function helpLine(s: InboxState, l: Layout): Line {
  const keys: string[] = [];
  const offered = s.mode.kind === 'normal' ? actionsFor(targetState(s)) : [];
  const names = { a: 'apply', x: 'decline', r: 'review', u: 'rollback', o: 'reopen' } as const;
  // the keys of the moment, most useful first, as many as fit; `?` lists them all
  if (s.screen === 'detail') keys.push(...offered.map((k) => `${k} ${names[k]}`), 'j/k/spc scroll', 'esc back', 'J/K next');
  else if (s.tab === 'queue') keys.push(...offered.map((k) => `${k} ${names[k]}`), 'enter diff', `s ${s.view}`, '/ filter', 'tab log', 'j/k/g/G');
  else keys.push('j/k move', 'enter view', 'tab queue');
  const tail = ['? keys', 'q quit'];
  const shown: string[] = [];
  for (const k of keys) if ([...shown, k, ...tail].join('  ').length <= l.width) shown.push(k);
  return line(l.width, [seg([...shown, ...tail].join('  '), 'dim')]);
}

const HELP_TEXT: ReadonlyArray<[string, string]> = [
  ['j k  Down Up', 'move down / up (in the proposal view: scroll)'],
  ['g G  Home End', 'first / last'],
  ['space PgDn  PgUp b', 'page down / up (Ctrl-F Ctrl-B; half: Ctrl-D Ctrl-U)'],
  ['enter  l', 'open the selected proposal: its checks and whole diff'],
  ['esc  h', 'back to the list (in the list: clear the filter)'],
  ['J K', 'in the proposal view: next / previous proposal'],
  ['m', 'in the proposal view: more of a large diff (it is paged; apply covers all of it)'],
  ['a', 'apply: review again, show it, ask y/n; y applies it'],
  ['x', 'decline, with a reason'],
  ['r', 'review again (after the vault changed, or a stale apply)'],
  ['u', 'roll back an applied proposal: propose the inverse change'],
  ['o', 'reopen a declined or undone proposal'],
  ['s', 'list: open (pending, blocked), applied, declined, all'],
  ['/', 'filter by id, title, agent or path'],
  ['tab', 'queue / history (the audit log)'],
  ['Ctrl-L', 'reload now (the list also reloads every few seconds)'],
  ['q  Ctrl-C', 'quit'],
];

/** The frame for a state. */
export function frame(s: InboxState): Line[] {
  const l = layout(s.size);
  const out: Line[] = [];
  const body = (rows: Line[], n: number) => {
    for (let i = 0; i < n; i++) out.push(rows[i] ?? blank(l.width));
  };
  if (s.screen === 'help') {
    out.push(line(l.width, [seg(' vaultgate inbox: keys ', 'title', { inverse: true, bold: true })]));
    body(
      HELP_TEXT.map(([k, what]) => line(l.width, [seg(fit(' ' + k, 22), 'accent', { bold: true }), seg(what)])),
      l.height - 2,
    );
    out.push(line(l.width, [seg('any key: back', 'dim')]));
    return out;
  }
  if (s.screen === 'detail') {
    out.push(detailHeader(s, l));
    const d = s.detail;
    let rows: Line[] = [];
    if (d?.error) rows = [line(l.width, [seg(`error [${d.error.code}]: ${printable(d.error.message)}`, 'bad')]), line(l.width, [seg(printable(d.error.hint ?? ''), 'dim')])];
    else if (d && !d.data) rows = [line(l.width, [seg(`loading ${d.id}…`, 'dim')])];
    else if (d) rows = visibleRows(d.body, d.pos, l.width, l.bodyRows).map((r) => line(l.width, rowSegments(r)));
    body(rows, l.bodyRows);
  } else if (s.tab === 'queue') {
    out.push(header(s, l));
    const q = s.queue;
    const visible = [];
    for (let i = q.top; i < Math.min(q.total ?? 0, q.top + l.listRows); i++) visible.push(i);
    const idWidth = Math.max(4, ...visible.map((i) => rowAt(q.pages, i)?.id.length ?? 0));
    const cols = queueColumns(l.width, idWidth);
    const colHead = [seg('  ' + fit('id', cols.id) + ' ' + fit('state', cols.state) + ' ' + fit('title', cols.title) + ' ', 'dim')];
    if (cols.agent) colHead.push(seg(fit('agent', cols.agent) + ' ', 'dim'));
    if (cols.files) colHead.push(seg(fit('#', cols.files) + ' ', 'dim'));
    colHead.push(seg(fit('age', cols.age) + ' ', 'dim'));
    if (cols.checks) colHead.push(seg('checks', 'dim'));
    out.push(line(l.width, colHead));
    let rows: Line[];
    if (q.total === null) rows = [line(l.width, [seg('  loading…', 'dim')])];
    else if (q.total === 0) rows = [line(l.width, [seg(`  no ${s.view === 'all' ? '' : s.view + ' '}proposals${s.filter ? ` matching /${printable(s.filter)}` : ''}`, 'dim')]), line(l.width, [seg(s.view === 'open' ? '  (s: show applied, declined, all)' : '', 'dim')])];
    else rows = visible.map((i) => {
      const p = rowAt(q.pages, i);
      return p ? queueRow(p, cols, l.width, i === q.cursor, s.now) : line(l.width, [seg(i === q.cursor ? '> …' : '  …', 'dim')]);
    });
    body(rows, l.listRows);
    const d = s.detail;
    const sel = rowAt(q.pages, q.cursor);
    const files = sel ? sel.files.map((f) => (f.to ? `${f.path} -> ${f.to}` : f.path)).join(', ') : '';
    const about = truncate(sel ? `-- ${sel.id}: ${sel.files.length} file${sel.files.length === 1 ? '' : 's'}: ${printable(files)} ` : '', l.width);
    out.push(line(l.width, [seg(about + '-'.repeat(Math.max(0, l.width - cellWidth(about))), 'dim')]));
    let preview: Line[] = [];
    if (sel && d?.id === sel.id) {
      if (d.error) preview = [line(l.width, [seg(`error [${d.error.code}]: ${printable(d.error.message)}`, 'bad')])];
      else if (!d.data) preview = [line(l.width, [seg(`loading ${d.id}…`, 'dim')])];
      else preview = visibleRows(d.body, TOP, l.width, l.previewRows).map((r) => line(l.width, rowSegments(r)));
    }
    body(preview, l.previewRows);
  } else {
    out.push(header(s, l));
    out.push(line(l.width, [seg('  ' + fit('when', 4) + ' ' + fit('event', 17) + ' ' + fit('proposal', 8) + ' ' + fit('actor', 10) + ' detail', 'dim')]));
    const h = s.history;
    let rows: Line[];
    if (h.total === null) rows = [line(l.width, [seg('  loading…', 'dim')])];
    else if (h.total === 0) rows = [line(l.width, [seg('  no events yet', 'dim')])];
    else {
      rows = [];
      for (let i = h.top; i < Math.min(h.total, h.top + l.historyRows); i++) {
        const e = rowAt(h.pages, i);
        rows.push(e ? historyRow(e, l.width, i === h.cursor, s.now) : line(l.width, [seg('  …', 'dim')]));
      }
    }
    body(rows, l.historyRows);
  }
  out.push(...messageRows(s, l));
  out.push(helpLine(s, l));
  return out;
}

/** A frame as plain text (tests, and a screen reader's view). */
export function frameText(lines: readonly Line[]): string {
  return lines.map((l) => l.map((s) => s.text).join('')).join('\n');
}
