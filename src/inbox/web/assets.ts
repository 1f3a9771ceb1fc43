/**
 * The web inbox's page: one HTML file, one script, one stylesheet, served from
 * these strings (no front-end build step, no CDN: it works offline).
 *
 * The script builds every element with `createElement` and sets every piece of
 * note text with `textContent` — there is no `innerHTML` anywhere (a unit test
 * checks), so a note containing `<script>` or `<img onerror>` is shown as text.
 * The server's Content-Security-Policy (`script-src 'self'`, no inline script)
 * is the second wall. The script and stylesheet are kept free of backticks and
 * `${` so they can live in template strings.
 */

import { visibleText } from '../../visible-text.js';
import { diffEmphasis } from '../../word-emphasis.js';

const INDEX_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vaultgate inbox</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body>
<header>
  <h1>vaultgate <span class="sub">inbox</span></h1>
  <span id="vault" class="vault"></span>
  <nav>
    <button id="tab-queue" class="tab active" type="button">Queue</button>
    <button id="tab-history" class="tab" type="button">History</button>
  </nav>
  <span id="live" class="live off" title="live refresh">live</span>
</header>
<div id="notice" class="notice" hidden></div>
<section id="consent" class="consent" hidden>
  <h2>Consent requests <span class="sub">— sending vault text off this machine waits for you</span></h2>
  <ul id="consent-list" class="consent-list"></ul>
</section>
<main id="queue-view">
  <aside id="queue">
    <div class="filters">
      <label>State
        <select id="f-state">
          <option value="">all</option>
          <option value="pending" selected>pending</option>
          <option value="blocked">blocked</option>
          <option value="applied">applied</option>
          <option value="declined">declined</option>
          <option value="recovery">recovery</option>
          <option value="undone">undone</option>
        </select>
      </label>
      <label>Agent
        <select id="f-agent"><option value="">all</option></select>
      </label>
    </div>
    <p id="count" class="count"></p>
    <ul id="list" class="list"></ul>
  </aside>
  <article id="detail" class="detail"><p class="empty">Select a proposal.</p></article>
</main>
<main id="history-view" hidden>
  <table id="log" class="log">
    <thead><tr><th>when (local time)</th><th>who</th><th>what happened</th></tr></thead>
    <tbody></tbody>
  </table>
</main>
</body>
</html>
`;

const FAVICON_SVG = String.raw`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#3b4a6b"/><path d="M4 4h8v2H9v6H7V6H4z" fill="#fff"/></svg>
`;

const APP_CSS = String.raw`:root { --bg: #f7f7f5; --panel: #fff; --ink: #1f2328; --mute: #6a737d; --line: #d8dadf; --accent: #3b4a6b;
  --add: #e6ffec; --add-ink: #116329; --del: #ffebe9; --del-ink: #a40e26; --warn: #9a6700; --block: #cf222e; --ok: #1a7f37; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
header { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: var(--accent); color: #fff; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header .sub { font-weight: 400; opacity: .8; }
header .vault { font: 12px ui-monospace, monospace; opacity: .85; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
nav { display: flex; gap: 4px; }
.tab { background: transparent; border: 1px solid rgba(255,255,255,.4); color: #fff; padding: 3px 10px; border-radius: 4px; cursor: pointer; }
.tab.active { background: #fff; color: var(--accent); }
.live { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--ok); }
.live.off { background: #888; }
.notice { margin: 8px 16px 0; padding: 8px 12px; border-radius: 4px; background: #fff8c5; border: 1px solid #d4a72c; white-space: pre-wrap; }
.notice.error { background: var(--del); border-color: var(--block); }
.notice.ok { background: var(--add); border-color: var(--ok); }
main { display: flex; gap: 12px; padding: 12px 16px; align-items: flex-start; }
#queue { width: 340px; flex: none; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
.filters { display: flex; gap: 8px; padding: 8px; border-bottom: 1px solid var(--line); }
.filters label { font-size: 12px; color: var(--mute); display: flex; flex-direction: column; flex: 1; }
.filters select { font-size: 13px; padding: 2px; }
.count { margin: 0; padding: 4px 8px; color: var(--mute); font-size: 12px; }
.list { list-style: none; margin: 0; padding: 0; max-height: calc(100vh - 170px); overflow: auto; }
.list li { padding: 8px; border-top: 1px solid var(--line); cursor: pointer; }
.list li:hover { background: #f0f3f8; }
.list li.selected { background: #e4ebf7; }
.list .title { font-weight: 600; display: block; overflow-wrap: anywhere; }
.list .meta { color: var(--mute); font-size: 12px; }
.badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; border: 1px solid var(--line); margin-right: 4px; }
.badge.pending { border-color: #0969da; color: #0969da; }
.badge.blocked { border-color: var(--block); color: var(--block); }
.badge.applied { border-color: var(--ok); color: var(--ok); }
.badge.declined, .badge.recovery, .badge.undone { border-color: var(--mute); color: var(--mute); }
.detail { flex: 1; min-width: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; }
.detail h2 { margin: 0 0 4px; font-size: 18px; overflow-wrap: anywhere; }
.detail .meta { color: var(--mute); font-size: 12px; margin-bottom: 8px; }
.detail .summary { white-space: pre-wrap; margin: 8px 0; }
.claim { border-left: 3px solid var(--line); padding: 2px 0 2px 10px; margin: 8px 0; }
.claim .claim-text { font-weight: 600; margin: 4px 0; overflow-wrap: anywhere; }
.evidence { list-style: none; padding: 0; margin: 4px 0; }
.evidence li { padding: 3px 0; }
.evidence .mark { display: inline-block; width: 72px; font-weight: 600; font-size: 12px; }
.evidence .ok .mark { color: var(--ok); }
.evidence .changed .mark, .evidence .note_gone .mark { color: var(--block); }
.evidence .moved .mark, .evidence .unchecked .mark { color: var(--warn); }
.evidence .where { font-family: ui-monospace, monospace; font-size: 12px; color: var(--mute); margin-right: 6px; overflow-wrap: anywhere; }
.evidence .fragment { display: block; margin: 2px 0 0 72px; white-space: pre-wrap; overflow-wrap: anywhere; }
.empty { color: var(--mute); }
.actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-start; margin: 12px 0; }
button.act { padding: 5px 12px; border-radius: 4px; border: 1px solid var(--line); background: #f6f8fa; cursor: pointer; font: inherit; }
button.act.primary { background: var(--ok); border-color: var(--ok); color: #fff; }
button.act.danger { background: #fff; border-color: var(--block); color: var(--block); }
button.act:disabled { opacity: .5; cursor: default; }
.decline { display: flex; gap: 6px; align-items: flex-start; }
.decline textarea { width: 280px; height: 32px; font: inherit; }
.confirm { border: 1px solid var(--ok); background: #f3fbf5; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.confirm code { font-size: 12px; }
.checks { list-style: none; padding: 0; margin: 8px 0; }
.checks li { padding: 2px 0; }
.checks .mark { display: inline-block; width: 48px; font-weight: 600; font-size: 12px; }
.checks .ok .mark { color: var(--ok); }
.checks .warn .mark { color: var(--warn); }
.checks .block .mark { color: var(--block); }
.checks .name { font-family: ui-monospace, monospace; font-size: 12px; color: var(--mute); margin-right: 6px; }
.file { margin: 12px 0; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.file > .head { background: #f6f8fa; padding: 6px 10px; font-family: ui-monospace, monospace; font-size: 12px; border-bottom: 1px solid var(--line); display: flex; gap: 8px; }
.file > .head .act-name { font-weight: 600; }
.modes { display: flex; gap: 4px; margin-left: auto; }
.modes button { font-size: 11px; padding: 1px 6px; border: 1px solid var(--line); background: #fff; border-radius: 3px; cursor: pointer; }
.modes button.on { background: var(--accent); color: #fff; }
table.diff { border-collapse: collapse; width: 100%; font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; table-layout: fixed; }
table.diff td { padding: 0 6px; vertical-align: top; white-space: pre-wrap; overflow-wrap: anywhere; }
table.diff col.c-n { width: 44px; }
table.diff col.c-s { width: 16px; }
table.diff td.n { color: var(--mute); text-align: right; user-select: none; background: #fafbfc; }
table.diff td.s { color: var(--mute); user-select: none; }
table.diff tr.hunk td { background: #ddf4ff; color: #57606a; }
table.diff td.add, table.diff td.add-sign { background: var(--add); }
table.diff td.del, table.diff td.del-sign { background: var(--del); }
table.diff td.gap { background: #f6f8fa; }
table.diff td.add .we { background: #9be9a8; border-radius: 2px; }
table.diff td.del .we { background: #ffaba8; border-radius: 2px; }
table.diff td.meta { color: var(--mute); }
.pager, .paged { color: var(--mute); margin: 4px 0 12px; }
table.diff .cut { color: var(--mute); font-style: italic; }
.md-h { color: #0550ae; font-weight: 700; }
.md-link { color: #8250df; }
.md-code { color: #953800; background: rgba(175,184,193,.2); }
.md-fence { color: #953800; }
.md-strong { font-weight: 700; }
.md-tag { color: #0a3069; background: #ddf4ff; border-radius: 3px; }
.md-quote { color: #57606a; }
.md-list { color: #cf222e; }
.md-comment { color: #6e7781; font-style: italic; }
.md-fm { color: #6639ba; }
table.log { border-collapse: collapse; width: 100%; background: var(--panel); border: 1px solid var(--line); font-size: 13px; }
table.log th, table.log td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.log td.nowrap { white-space: nowrap; }
table.log td.details { font: 12px ui-monospace, monospace; color: var(--mute); overflow-wrap: anywhere; }
table.log .what { overflow-wrap: anywhere; }
table.log .facts { color: var(--mute); font-size: 12px; margin-top: 2px; overflow-wrap: anywhere; }
code.hash { font: 12px ui-monospace, monospace; background: #f6f8fa; border-radius: 3px; padding: 0 3px; cursor: copy; }
code { font-family: ui-monospace, monospace; }
.consent { margin: 12px 16px 0; padding: 8px 12px; background: #fff8f0; border: 1px solid #d4a72c; border-radius: 6px; }
.consent h2 { font-size: 15px; margin: 0 0 6px; }
.consent h2 .sub { font-weight: 400; color: var(--mute); font-size: 13px; }
.consent-list { list-style: none; margin: 0; padding: 0; }
.consent-list > li { padding: 8px 0; border-top: 1px solid var(--line); }
.consent-list > li:first-child { border-top: none; }
.consent-list .what { font-weight: 600; overflow-wrap: anywhere; }
.consent-list .meta { color: var(--mute); font-size: 12px; overflow-wrap: anywhere; }
.consent-list .dest { font: 12px ui-monospace, monospace; overflow-wrap: anywhere; }
.consent-list pre { max-height: 240px; overflow: auto; background: #f6f8fa; padding: 6px; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
`;

const APP_JS = String.raw`'use strict';
(function () {
  var S = { csrf: null, ops: [], list: [], selected: null, detail: null, diffMode: 'split', tab: 'queue', confirm: null, agents: {}, pages: {}, wholeLines: {}, filesShown: {}, hiddenRows: 0, cutLines: 0, reasons: {}, typingReason: false };

  function $(id) { return document.getElementById(id); }
  /*
   * Every string the page shows goes through vis() (text nodes are made only by
   * txt(), el()'s text and cell()): src/visible-text.ts's own function, so a
   * bidi override in a diff reads <U+202E>, exactly as in the terminal.
   */
  var visibleText = /*VISIBLE_TEXT*/ null;
  var diffEmphasis = /*DIFF_EMPHASIS*/ null;
  function vis(s) { return visibleText(String(s), { keepLineBreaks: true }); }
  function txt(s) { return document.createTextNode(vis(s)); }
  function el(tag, props, children) {
    var e = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (k) {
        var v = props[k];
        if (v === undefined || v === null) return;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = vis(v);
        else if (k.indexOf('on') === 0) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, String(v));
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      e.appendChild(typeof c === 'string' ? txt(c) : c);
    });
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function has(op) { return S.ops.indexOf(op) >= 0; }

  function notice(text, kind) {
    var n = $('notice');
    n.textContent = vis(text || '');
    n.className = 'notice' + (kind ? ' ' + kind : '');
    n.hidden = !text;
  }
  function describe(err) {
    var d = err && err.doc;
    return d ? d.code + ': ' + d.message + (d.hint ? '\n' + d.hint : '') : String(err && err.message || err);
  }

  function api(method, path, body) {
    var headers = { 'Accept': 'application/json' };
    if (method !== 'GET') { headers['Content-Type'] = 'application/json'; headers['X-CSRF-Token'] = S.csrf || ''; }
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' })
      .then(function (r) {
        return r.json().then(function (j) {
          if (!j.ok) { var e = new Error(j.error.message); e.doc = j.error; e.status = r.status; throw e; }
          return j;
        });
      });
  }

  function login() {
    var m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
    var first = Promise.resolve();
    if (m) {
      history.replaceState(null, '', location.pathname);
      first = fetch('/api/session', { method: 'POST', headers: { 'Authorization': 'Bearer ' + m[1] }, credentials: 'same-origin' })
        .then(function (r) { return r.json(); })
        .then(function (j) { if (!j.ok) { var e = new Error(j.error.message); e.doc = j.error; throw e; } });
    }
    return first.then(function () { return api('GET', '/api/session'); }).then(function (j) {
      S.csrf = j.csrf_token;
      S.ops = j.operations || [];
      $('vault').textContent = vis(j.vault.root);
      $('vault').title = 'vault id ' + j.vault.vault_id;
    });
  }

  /* ---- Markdown colouring of one line (spans with textContent only) ---- */
  var INLINE = /(!?\[\[[^\]\n]*\]\])|(\[[^\]\n]*\]\([^)\n]*\))|(\x60[^\x60\n]+\x60)|(\*\*[^*\n]+\*\*)|(%%[^%\n]*%%)|((?:^|\s)#[A-Za-z0-9_\/-]*[A-Za-z_\/-][A-Za-z0-9_\/-]*)/g;
  var INLINE_CLASS = ['md-link', 'md-link', 'md-code', 'md-strong', 'md-comment', 'md-tag'];
  function span(cls, text) { return el('span', { 'class': cls, text: text }); }
  function inline(parent, text) {
    var last = 0;
    INLINE.lastIndex = 0;
    var m;
    while ((m = INLINE.exec(text)) !== null) {
      var start = m.index;
      var tok = m[0];
      var group = 1;
      while (group < m.length && m[group] === undefined) group++;
      if (group === 6 && /^\s/.test(tok)) { start += 1; tok = tok.slice(1); }
      if (start > last) parent.appendChild(txt(text.slice(last, start)));
      parent.appendChild(span(INLINE_CLASS[group - 1], tok));
      last = start + tok.length;
      if (m[0].length === 0) INLINE.lastIndex++;
    }
    if (last < text.length) parent.appendChild(txt(text.slice(last)));
  }
  function markdownLine(text, ctx) {
    var f = document.createDocumentFragment();
    if (/^(\x60\x60\x60|~~~)/.test(text)) { ctx.fence = !ctx.fence; f.appendChild(span('md-fence', text)); return f; }
    if (ctx.fence) { f.appendChild(span('md-fence', text)); return f; }
    if (text === '---') { f.appendChild(span('md-fm', text)); return f; }
    var h = /^#{1,6}\s/.exec(text);
    if (h) { f.appendChild(span('md-h', text)); return f; }
    var q = /^\s*>/.exec(text);
    if (q) { var s = span('md-quote', ''); inline(s, text); f.appendChild(s); return f; }
    var l = /^(\s*)([-*+]|\d+[.)])(\s+(?:\[[ xX]\]\s)?)/.exec(text);
    if (l) {
      f.appendChild(txt(l[1]));
      f.appendChild(span('md-list', l[2]));
      f.appendChild(txt(l[3]));
      inline(f, text.slice(l[0].length));
      return f;
    }
    inline(f, text);
    return f;
  }

  /* ---- unified diff → rows ---- */
  function parseDiff(text) {
    var rows = [];
    var o = 0, n = 0, inHunk = false;
    var lines = text.split('\n');
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    lines.forEach(function (line) {
      var h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
      if (h) { o = +h[1]; n = +h[2]; inHunk = true; rows.push({ t: 'hunk', text: line }); return; }
      if (!inHunk) { rows.push({ t: 'meta', text: line }); return; }
      var c = line.charAt(0), body = line.slice(1);
      if (c === '+') rows.push({ t: 'add', n: n++, text: body });
      else if (c === '-') rows.push({ t: 'del', o: o++, text: body });
      else if (c === '\\') rows.push({ t: 'meta', text: line });
      else rows.push({ t: 'ctx', o: o++, n: n++, text: body });
    });
    /* the changed words of each changed line (src/word-emphasis.ts, the function every face uses): one row per line */
    diffEmphasis(lines).forEach(function (em, i) { if (em && rows[i]) rows[i].em = em; });
    return rows;
  }
  function cell(cls, content) {
    var td = el('td', { 'class': cls });
    if (content === undefined || content === null) return td;
    if (typeof content === 'string' || typeof content === 'number') td.textContent = vis(String(content));
    else td.appendChild(content);
    return td;
  }
  function cols(t, kinds) {
    t.appendChild(el('colgroup', null, kinds.map(function (k) { return el('col', { 'class': 'c-' + k }); })));
  }
  function unified(rows) {
    var t = el('table', { 'class': 'diff unified' });
    cols(t, ['n', 'n', 's', 'text']);
    var ctx = { fence: false };
    rows.forEach(function (r) {
      if (r.t === 'meta') { t.appendChild(el('tr', null, [cell('n'), cell('n'), cell('s'), cell('meta', r.text)])); return; }
      if (r.t === 'hunk') { t.appendChild(el('tr', { 'class': 'hunk' }, [cell('n'), cell('n'), cell('s'), cell('', r.text)])); return; }
      var cls = r.t === 'add' ? 'add' : r.t === 'del' ? 'del' : '';
      t.appendChild(el('tr', null, [cell('n', r.o), cell('n', r.n), cell('s' + (cls ? ' ' + cls + '-sign' : ''), r.t === 'add' ? '+' : r.t === 'del' ? '-' : ' '), cell(cls, lineText(r, ctx))]));
    });
    return t;
  }
  function split(rows) {
    var t = el('table', { 'class': 'diff split' });
    cols(t, ['n', 'text', 'n', 'text']);
    var lctx = { fence: false }, rctx = { fence: false };
    var i = 0;
    while (i < rows.length) {
      var r = rows[i];
      if (r.t === 'meta') { i++; continue; }
      if (r.t === 'hunk') { t.appendChild(el('tr', { 'class': 'hunk' }, [cell('n'), el('td', { colspan: 3, text: r.text })])); i++; continue; }
      if (r.t === 'ctx') {
        t.appendChild(el('tr', null, [cell('n', r.o), cell('', lineText(r, lctx)), cell('n', r.n), cell('', lineText(r, rctx))]));
        i++;
        continue;
      }
      var dels = [], adds = [];
      while (i < rows.length && rows[i].t === 'del') dels.push(rows[i++]);
      while (i < rows.length && rows[i].t === 'add') adds.push(rows[i++]);
      for (var k = 0; k < Math.max(dels.length, adds.length); k++) {
        var d = dels[k], a = adds[k];
        t.appendChild(el('tr', null, [
          cell('n', d ? d.o : null), d ? cell('del', lineText(d, lctx)) : cell('gap'),
          cell('n', a ? a.n : null), a ? cell('add', lineText(a, rctx)) : cell('gap'),
        ]));
      }
    }
    return t;
  }

  /* ---- queue ---- */
  function loadList() {
    if (!has('proposals')) { $('count').textContent = 'This vaultgate has no proposals.'; return Promise.resolve(); }
    var q = [];
    if ($('f-state').value) q.push('state=' + encodeURIComponent($('f-state').value));
    if ($('f-agent').value) q.push('agent=' + encodeURIComponent($('f-agent').value));
    return api('GET', '/api/proposals' + (q.length ? '?' + q.join('&') : '')).then(function (j) {
      S.list = j.proposals;
      j.proposals.forEach(function (p) { if (p.agent) S.agents[p.agent] = true; });
      renderAgents();
      renderList(j.total);
    });
  }
  function renderAgents() {
    var sel = $('f-agent'), cur = sel.value;
    var names = Object.keys(S.agents).sort();
    if (sel.options.length - 1 === names.length) return;
    clear(sel);
    sel.appendChild(el('option', { value: '', text: 'all' }));
    names.forEach(function (a) { sel.appendChild(el('option', { value: a, text: a })); });
    sel.value = cur;
  }
  function renderList(total) {
    var ul = $('list');
    clear(ul);
    $('count').textContent = total === S.list.length ? total + ' proposal' + (total === 1 ? '' : 's') : S.list.length + ' of ' + total + ' proposals';
    S.list.forEach(function (p) {
      var li = el('li', { 'class': p.id === S.selected ? 'selected' : '', 'data-id': p.id, onclick: function () { select(p.id); } }, [
        el('span', { 'class': 'title', text: p.title }),
        el('span', { 'class': 'meta' }, [
          el('span', { 'class': 'badge ' + p.state, text: p.state }),
          p.id + ' · ' + (p.agent || 'no agent') + ' · ' + p.files.length + ' file' + (p.files.length === 1 ? '' : 's') + ' · ' + age(p.created_at),
          p.blocking.length ? ' · blocked by ' + p.blocking.join(', ') : '',
          p.warnings ? ' · ' + p.warnings + ' warning' + (p.warnings === 1 ? '' : 's') : '',
        ]),
      ]);
      ul.appendChild(li);
    });
  }
  function age(iso) {
    var s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
    if (s < 90) return Math.round(s) + ' s ago';
    if (s < 5400) return Math.round(s / 60) + ' min ago';
    if (s < 129600) return Math.round(s / 3600) + ' h ago';
    return Math.round(s / 86400) + ' d ago';
  }

  /* ---- one proposal ---- */
  function select(id) {
    S.selected = id;
    S.confirm = null;
    Array.prototype.forEach.call($('list').children, function (li) { li.className = li.getAttribute('data-id') === id ? 'selected' : ''; });
    return loadDetail();
  }
  function loadDetail() {
    if (!S.selected) return Promise.resolve();
    return api('GET', '/api/proposals/' + encodeURIComponent(S.selected)).then(function (j) { S.detail = j; renderDetail(); })
      .catch(function (e) { notice(describe(e), 'error'); });
  }
  function checkList(checks) {
    return el('ul', { 'class': 'checks' }, checks.map(function (c) {
      var kind = c.ok ? 'ok' : c.severity === 'block' ? 'block' : 'warn';
      return el('li', { 'class': kind }, [el('span', { 'class': 'mark', text: kind === 'block' ? 'BLOCK' : kind }), el('span', { 'class': 'name', text: c.name }), c.message + (c.path ? ' (' + c.path + ')' : '')]);
    }));
  }
  function fileBlock(f) {
    var head = el('div', { 'class': 'head' }, [
      el('span', { 'class': 'act-name', text: f.action }),
      el('span', { text: f.path + (f.to ? ' → ' + f.to : '') }),
      f.shrink > 0 ? el('span', { text: 'removes ' + Math.round(f.shrink * 100) + '%' }) : null,
    ]);
    var modes = el('span', { 'class': 'modes' });
    ['split', 'unified'].forEach(function (m) {
      modes.appendChild(el('button', { type: 'button', 'class': S.diffMode === m ? 'on' : '', text: m === 'split' ? 'side by side' : 'unified', onclick: function () { S.diffMode = m; renderDetail(); } }));
    });
    head.appendChild(modes);
    var rows = parseDiff(f.diff || '');
    var pg = diffPage(f, rows);
    var body = rows.length ? (S.diffMode === 'split' ? split(pg.rows) : unified(pg.rows)) : el('p', { 'class': 'empty', text: f.action === 'move' ? 'moved, text unchanged' : 'no text change' });
    return el('div', { 'class': 'file', 'data-path': f.path }, [head, body, pg.pager]);
  }
  /*
   * A large diff is paged: the first DIFF_PAGE_ROWS rows of each file, each line
   * cut at LINE_PAGE_CHARS characters, with buttons for more. Paging changes what
   * is on screen only: Approve reviews again and applies the whole change under
   * its review hash, shown or not, and says how much was not shown.
   */
  var DIFF_PAGE_ROWS = 500, LINE_PAGE_CHARS = 4000, FILES_PAGE = 50;
  function pageKey(f) { return S.selected + '\u0000' + f.path; }
  function diffPage(f, rows) {
    var key = pageKey(f);
    var limit = S.pages[key] || DIFF_PAGE_ROWS;
    var whole = !!S.wholeLines[key];
    var cut = 0;
    var shown = rows.slice(0, limit).map(function (r) {
      if (whole || r.text.length <= LINE_PAGE_CHARS) return r;
      cut++;
      var c = {};
      Object.keys(r).forEach(function (k) { c[k] = r[k]; });
      c.text = r.text.slice(0, LINE_PAGE_CHARS);
      c.more = r.text.length - LINE_PAGE_CHARS;
      return c;
    });
    var hidden = Math.max(0, rows.length - limit);
    S.hiddenRows += hidden;
    S.cutLines += cut;
    if (!hidden && !cut) return { rows: shown, pager: null };
    var parts = [];
    if (hidden) {
      parts.push('Showing ' + limit + ' of ' + rows.length + ' diff lines. ');
      parts.push(button('Show ' + Math.min(DIFF_PAGE_ROWS, hidden) + ' more', 'more', function () { S.pages[key] = limit + DIFF_PAGE_ROWS; renderDetail(); }));
      parts.push(' ');
      parts.push(button('Show all', 'all', function () { S.pages[key] = rows.length; renderDetail(); }));
      parts.push(' ');
    }
    if (cut) {
      parts.push(cut + ' long line' + (cut === 1 ? '' : 's') + ' cut at ' + LINE_PAGE_CHARS + ' characters. ');
      parts.push(button('Show whole lines', 'whole', function () { S.wholeLines[key] = true; renderDetail(); }));
    }
    return { rows: shown, pager: el('p', { 'class': 'pager' }, parts) };
  }
  function emphasised(r) {
    var f = document.createDocumentFragment();
    var at = 0;
    r.em.forEach(function (x) {
      var s = Math.min(x[0], r.text.length), e = Math.min(x[1], r.text.length);
      if (e <= s) return;
      if (s > at) f.appendChild(txt(r.text.slice(at, s)));
      f.appendChild(el('span', { 'class': 'we', text: r.text.slice(s, e) }));
      at = e;
    });
    if (at < r.text.length) f.appendChild(txt(r.text.slice(at)));
    return f;
  }
  function lineText(r, ctx) {
    var md = markdownLine(r.text, ctx);
    /* a changed line with changed words shows those, not the Markdown colours (the fence state above still advances) */
    if (r.em) md = emphasised(r);
    if (!r.more) return md;
    return el('span', null, [md, el('span', { 'class': 'cut', text: ' … ' + r.more + ' more characters' })]);
  }
  /*
   * A plan's claim with the fragments it cites beside it (issue 22 §2): the
   * person judges whether they are enough; the status is what the last review
   * found (a fragment no longer in its note is also a failing evidence check).
   */
  function claimBlock(j) {
    if (!j.claim) return null;
    var c = j.claim;
    var items = (j.evidence || []).map(function (e) {
      var lines = e.lines[0] === e.lines[1] ? e.lines[0] : e.lines[0] + '-' + e.lines[1];
      var where = e.side + ' ' + e.note + ':' + lines + (e.heading.length ? ' (' + e.heading.join(' > ') + ')' : '') + (e.anchor ? ' · the link goes here' : '') +
        (e.found_lines ? ' · now at ' + e.found_lines[0] + '-' + e.found_lines[1] : '');
      return el('li', { 'class': e.status, 'data-id': e.id }, [
        el('span', { 'class': 'mark', text: e.status.replace('_', ' ') }),
        el('span', { 'class': 'where', text: where }),
        el('q', { 'class': 'fragment', text: e.text }),
      ]);
    });
    return el('section', { 'class': 'claim', id: 'claim' }, [
      el('h3', { text: 'Claim' }),
      el('p', { 'class': 'claim-text', text: c.text }),
      el('div', { 'class': 'meta', text: c.kind + ' · catalog ' + c.catalog_id + ', answer ' + c.answer_id + ', recommendation ' + c.recommendation }),
      el('h3', { text: 'Evidence (' + items.length + '): is it enough for the claim? That is yours to judge.' }),
      el('ul', { 'class': 'evidence', id: 'evidence' }, items),
    ]);
  }
  function renderDetail() {
    var d = $('detail');
    // whether the person is typing a decline reason: the redraw below gives the new box the cursor back
    S.typingReason = document.activeElement !== null && document.activeElement.id === 'decline-reason';
    clear(d);
    var j = S.detail;
    d.removeAttribute('data-proposal');
    if (!j) { d.appendChild(el('p', { 'class': 'empty', text: 'Select a proposal.' })); return; }
    var p = j.proposal;
    d.setAttribute('data-proposal', p.id);
    d.appendChild(el('h2', { text: p.title }));
    d.appendChild(el('div', { 'class': 'meta' }, [
      el('span', { 'class': 'badge ' + p.state, text: p.state }),
      p.id + ' · by ' + (p.agent || 'no agent') + ' · ' + p.created_at + (p.scenario ? ' · scenario ' + p.scenario : '') + (p.rollback_of ? ' · rollback of ' + p.rollback_of : '') +
        (p.applied_at ? ' · applied ' + p.applied_at + ' as ' + p.operation_id : '') + (p.declined_reason ? ' · declined: ' + p.declined_reason : '') +
        (p.undone_by ? ' · undone ' + (p.undone_at || '') + ' by ' + p.undone_by + ': the vault no longer holds this change' : ''),
    ]));
    if (p.summary) d.appendChild(el('p', { 'class': 'summary', text: p.summary }));
    var claim = claimBlock(j);
    if (claim) d.appendChild(claim);
    d.appendChild(actions(p));
    if (S.confirm) d.appendChild(S.confirm);
    d.appendChild(el('h3', { text: 'Checks' + (j.review_hash ? '' : ' (no review hash: this cannot be applied as it is)') }));
    d.appendChild(checkList(j.checks || []));
    S.hiddenRows = 0;
    S.cutLines = 0;
    var files = j.files || [];
    var nFiles = S.filesShown[p.id] || FILES_PAGE;
    files.slice(0, nFiles).forEach(function (f) { d.appendChild(fileBlock(f)); });
    if (files.length > nFiles) {
      files.slice(nFiles).forEach(function (f) { S.hiddenRows += parseDiff(f.diff || '').length; });
      d.appendChild(el('p', { 'class': 'pager', id: 'files-pager' }, [
        'Showing ' + nFiles + ' of ' + files.length + ' files. ',
        button('Show ' + Math.min(FILES_PAGE, files.length - nFiles) + ' more files', 'more-files', function () { S.filesShown[p.id] = nFiles + FILES_PAGE; renderDetail(); }),
      ]));
    }
    var note = $('confirm-paged');
    if (note) note.textContent = pagedNote();
  }
  function pagedNote() {
    if (!S.hiddenRows && !S.cutLines) return '';
    return 'Not all of the diff is on screen (' + [S.hiddenRows ? S.hiddenRows + ' diff lines not shown' : '', S.cutLines ? S.cutLines + ' long lines cut' : ''].filter(Boolean).join(', ') + '): Apply applies the whole change, shown or not.';
  }
  function button(text, cls, on, disabled) { return el('button', { type: 'button', 'class': 'act ' + (cls || ''), text: text, onclick: on, disabled: disabled ? 'disabled' : null }); }
  function actions(p) {
    var box = el('div', { 'class': 'actions' });
    if ((p.state === 'pending' || p.state === 'blocked') && has('review')) box.appendChild(button('Review again', '', function () { act('review'); }));
    if (p.state === 'pending' && has('apply')) box.appendChild(button('Approve…', 'primary', approve));
    if ((p.state === 'pending' || p.state === 'blocked') && has('decline')) {
      // a live refresh redraws this pane whenever the queue changes: the reason typed so far, and the
      // cursor in it, stay (kept per proposal until it is declined)
      var reason = el('textarea', { id: 'decline-reason', placeholder: 'reason for declining' });
      reason.value = S.reasons[p.id] || '';
      reason.addEventListener('input', function () { S.reasons[p.id] = reason.value; });
      if (S.typingReason) setTimeout(function () { reason.focus(); reason.setSelectionRange(reason.value.length, reason.value.length); }, 0);
      box.appendChild(el('span', { 'class': 'decline' }, [reason, button('Decline', 'danger', function () {
        if (!reason.value.trim()) { notice('Say why you decline it: the agent and the log see the reason.', 'error'); return; }
        act('decline', { reason: reason.value });
      })]));
    }
    if ((p.state === 'declined' || p.state === 'undone') && has('reopen')) box.appendChild(button('Reopen', '', function () { act('reopen'); }));
    if (p.state === 'applied' && has('rollback') && !p.rolled_back_by) box.appendChild(button('Roll back…', 'danger', function () { act('rollback'); }));
    if (p.rolled_back_by) box.appendChild(el('span', { 'class': 'meta', text: p.rollback_state === 'applied' ? 'rolled back by ' + p.rolled_back_by : 'rollback proposed as ' + p.rolled_back_by + ' (' + (p.rollback_state || '?') + ')' }));
    return box;
  }
  /* Approve = review now, show that review, then apply with exactly its hash. */
  function approve() {
    notice('');
    api('POST', '/api/proposals/' + encodeURIComponent(S.selected) + '/review', {}).then(function (r) {
      S.detail.checks = r.checks; S.detail.files = r.files; S.detail.review_hash = r.review_hash; S.detail.proposal.state = r.proposal.state;
      if (r.evidence) S.detail.evidence = r.evidence;
      var blocking = (r.checks || []).filter(function (c) { return !c.ok && c.severity === 'block'; });
      var warns = (r.checks || []).filter(function (c) { return !c.ok && c.severity !== 'block'; });
      if (blocking.length || !r.review_hash) {
        S.confirm = el('div', { 'class': 'confirm' }, [el('strong', { text: 'The review now blocks it: ' }), blocking.map(function (c) { return c.name; }).join(', ') || 'no review hash']);
      } else {
        var hash = r.review_hash;
        S.confirm = el('div', { 'class': 'confirm', id: 'confirm' }, [
          el('p', null, ['Reviewed just now: ' + r.checks.length + ' checks, ' + warns.length + ' warning' + (warns.length === 1 ? '' : 's') + '. Apply exactly this change (review ', el('code', { text: hash.slice(0, 12) }), ')?']),
          el('p', { 'class': 'paged', id: 'confirm-paged' }),
          button('Apply', 'primary', function () { act('apply', { review_hash: hash }); }),
          ' ',
          button('Cancel', '', function () { S.confirm = null; renderDetail(); }),
        ]);
      }
      renderDetail();
    }).catch(function (e) { notice(describe(e), 'error'); });
  }
  function act(action, body) {
    notice('');
    return api('POST', '/api/proposals/' + encodeURIComponent(S.selected) + '/' + action, body || {}).then(function (r) {
      S.confirm = null;
      if (action === 'apply') notice('Applied ' + r.proposal.id + ' as ' + r.operation_id + ': ' + r.changed_paths.join(', '), 'ok');
      else if (action === 'decline') { delete S.reasons[r.proposal.id]; notice('Declined ' + r.proposal.id + '.', 'ok'); }
      else if (action === 'rollback') { notice('Created ' + r.proposal.id + ', the rollback of ' + S.selected + ': review and apply it like any proposal.', 'ok'); S.selected = r.proposal.id; $('f-state').value = ''; }
      else if (action === 'reopen') notice('Reopened ' + r.proposal.id + ': ' + r.proposal.state + '.', 'ok');
      return Promise.all([loadList(), loadDetail()]);
    }).catch(function (e) { notice(describe(e), 'error'); return loadDetail(); });
  }

  /* ---- consent requests: sending vault text off this machine (providers/consent.ts) ---- */
  /* Approve = the person's yes for exactly that plan, once: the agent's next identical call sends it. */
  function loadConsent() {
    if (!has('consent_pending')) return Promise.resolve();
    return api('GET', '/api/consent').then(function (j) { S.consent = j.requests; renderConsent(); })
      .catch(function (e) { notice(describe(e), 'error'); });
  }
  function renderConsent() {
    var list = S.consent || [];
    var ul = $('consent-list');
    clear(ul);
    $('consent').hidden = list.length === 0;
    list.forEach(function (r) {
      var files = el('ul', { 'class': 'files' }, r.files.slice(0, 50).map(function (f) { return el('li', { text: f.path + ' (' + f.bytes + ' bytes)' }); }));
      if (r.files.length > 50) files.appendChild(el('li', { text: '… and ' + (r.files.length - 50) + ' more notes' }));
      var box = el('div', { 'class': 'actions' });
      if (S.consentConfirm === r.id) {
        box.appendChild(el('div', { 'class': 'confirm', id: 'consent-confirm' }, [
          el('p', { text: 'Send exactly this (' + r.request_bytes + ' bytes of ' + r.notes + ' notes) to ' + r.host + ', which is not this machine, once?' }),
          button('Approve', 'primary', function () { decideConsent(r.id, 'approve'); }),
          ' ',
          button('Cancel', '', function () { S.consentConfirm = null; renderConsent(); }),
        ]));
      } else {
        box.appendChild(button('Approve…', 'primary', function () { S.consentConfirm = r.id; renderConsent(); }));
        box.appendChild(button('Decline', 'danger', function () { decideConsent(r.id, 'deny'); }));
      }
      ul.appendChild(el('li', { 'data-consent': r.id }, [
        el('div', { 'class': 'what', text: 'Send vault text to ' + r.host + ' (not this machine) for ' + r.purpose }),
        el('div', { 'class': 'dest', text: r.destination }),
        el('div', { 'class': 'meta', text: r.id + ' · asked by ' + (r.agent || 'no agent') + ' through ' + r.face + ' · ' + age(r.created_at) + ' · provider ' + r.provider + ', model ' + r.model }),
        el('div', { 'class': 'size', text: r.notes + ' note' + (r.notes === 1 ? '' : 's') + ', ' + r.sections + ' text' + (r.sections === 1 ? '' : 's') + ', ' + r.requests + ' request' + (r.requests === 1 ? '' : 's') + ', ' + r.request_bytes + ' bytes' }),
        r.files.length ? files : el('div', { 'class': 'meta', text: 'no note text: only the query' }),
        el('details', null, [el('summary', { text: 'what is sent (start of the first request)' }), el('pre', { text: r.first_request })]),
        box,
      ]));
    });
  }
  function decideConsent(id, action) {
    notice('');
    return api('POST', '/api/consent/' + encodeURIComponent(id) + '/' + action, {}).then(function (r) {
      S.consentConfirm = null;
      notice(action === 'approve' ? 'Approved ' + r.request.id + ': the next identical run sends it to ' + r.request.host + ', once.' : 'Declined ' + r.request.id + ': nothing is sent.', 'ok');
      return loadConsent();
    }).catch(function (e) { notice(describe(e), 'error'); return loadConsent(); });
  }

  /* ---- history ---- */
  /* One sentence per audit event (docs/json.md, log): what happened, to which proposal, in the
     person's words; times in local time (UTC on hover); hashes shortened, whole on hover and copy. */
  function pad2(n) { return (n < 10 ? '0' : '') + n; }
  function localTime(iso) {
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso;
    return d.getFullYear() + '-' + pad2(d.getMonth() + 1) + '-' + pad2(d.getDate()) + ' ' + pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
  }
  function hash(full) { return el('code', { 'class': 'hash', title: full, 'data-full': full, text: full.slice(0, 12) + '\u2026' }); }
  function pathsOf(list) { return (list || []).join(', '); }
  /* A rolled_back written by a log before issue 21 at proposal time (it carries details.state) means rollback_proposed. */
  function eventName(e) { return e.event === 'rolled_back' && typeof (e.details || {}).state === 'string' ? 'rollback_proposed' : e.event; }
  function sentence(e) {
    var d = e.details || {};
    var id = e.proposal ? el('a', { href: '#', 'class': 'pid', text: e.proposal, onclick: function (ev) { ev.preventDefault(); openFromLog(e.proposal); } }) : 'a proposal';
    var other = function (pid) { return el('a', { href: '#', 'class': 'pid', text: pid, onclick: function (ev) { ev.preventDefault(); openFromLog(pid); } }); };
    var files = (d.files || []).map(function (f) { return f.to ? f.path + ' \u2192 ' + f.to : f.path; });
    switch (eventName(e)) {
      case 'proposed':
        return [d.origin === 'rollback' && d.rollback_of ? 'proposed the rollback ' : 'proposed ', id, ': ' + (d.title ? '\u201c' + d.title + '\u201d' : '') + (files.length ? ' (' + files.join(', ') + ')' : '')];
      case 'reviewed':
      case 'reopened': {
        var blocking = (d.blocking || []).length ? 'blocked by ' + d.blocking.join(', ') : String(d.state || '');
        var warn = d.warnings ? ', ' + d.warnings + ' warning' + (d.warnings === 1 ? '' : 's') : '';
        return e.event === 'reopened' ? ['reopened ', id, (d.from ? ' (was ' + d.from + ')' : '') + ': ' + blocking + warn] : ['reviewed ', id, ': ' + blocking + warn];
      }
      case 'applied':
        if (d.redone) return ['applied ', id, ' again: the undo of its transaction was itself undone'];
        return ['applied ', id, ': ' + pathsOf(d.changed_paths) + (d.replayed ? ' (already applied; the stored result)' : '')];
      case 'declined':
        return ['declined ', id, ': ' + (d.reason || '')];
      case 'rollback_proposed':
        return ['proposed rolling back ', id, typeof d.rollback_proposal === 'string' ? ' as ' : '', typeof d.rollback_proposal === 'string' ? other(d.rollback_proposal) : '', d.state ? ' (' + d.state + ')' : ''];
      case 'rolled_back':
        return ['rolled back ', id, typeof d.rollback_proposal === 'string' ? ' by applying ' : '', typeof d.rollback_proposal === 'string' ? other(d.rollback_proposal) : '', d.changed_paths ? ': ' + pathsOf(d.changed_paths) : ''];
      case 'recovery':
        return ['settled the interrupted apply of ', id, ': ' + String(d.outcome || '').replace(/_/g, ' ')];
      case 'undone':
        return ['the transaction of ', id, ' was undone' + (d.undone_by ? ' by ' + d.undone_by : '') + (d.changed_paths ? ': ' + pathsOf(d.changed_paths) : '')];
      default:
        return [e.event + ' ', id];
    }
  }
  /* What identifies the event for a person comparing with the CLI: the transaction, the review hash, each file's hashes. */
  function facts(e) {
    var out = [];
    var add = function (label, node) { if (out.length) out.push(' \u00b7 '); out.push(label); out.push(node); };
    if (e.operation_id) add('transaction ', el('code', { text: e.operation_id }));
    if (e.review_hash) add('review ', hash(e.review_hash));
    ((e.details || {}).files || []).forEach(function (f) {
      if (!f.base_sha256 && !f.new_sha256) return;
      add(f.path + ' ', el('span', null, [f.base_sha256 ? hash(f.base_sha256) : 'new', ' \u2192 ', f.new_sha256 ? hash(f.new_sha256) : 'deleted']));
    });
    return out;
  }
  function loadLog() {
    if (!has('log')) return Promise.resolve();
    return api('GET', '/api/log?limit=500').then(function (j) {
      var tb = $('log').tBodies[0];
      clear(tb);
      j.events.forEach(function (e) {
        var f = facts(e);
        tb.appendChild(el('tr', { 'data-event': eventName(e), 'data-seq': String(e.seq) }, [
          el('td', { 'class': 'nowrap', title: e.at + ' (UTC)', text: localTime(e.at) }),
          el('td', { text: e.actor }),
          el('td', null, [el('div', { 'class': 'what' }, sentence(e)), f.length ? el('div', { 'class': 'facts' }, f) : null]),
        ]));
      });
    }).catch(function (e) { notice(describe(e), 'error'); });
  }
  /* Copying a shortened hash copies all of it. */
  document.addEventListener('copy', function (ev) {
    var sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || !ev.clipboardData) return;
    var frag = sel.getRangeAt(0).cloneContents();
    var shortened = frag.querySelectorAll ? frag.querySelectorAll('code.hash') : [];
    var anchor = sel.anchorNode && (sel.anchorNode.nodeType === 1 ? sel.anchorNode : sel.anchorNode.parentNode);
    var inside = anchor && anchor.closest ? anchor.closest('code.hash') : null;
    if (!shortened.length && !inside) return;
    var text;
    if (!shortened.length) text = inside.getAttribute('data-full');
    else {
      shortened.forEach(function (c) { c.textContent = c.getAttribute('data-full'); });
      var box = document.createElement('div');
      box.appendChild(frag);
      text = box.textContent;
    }
    ev.clipboardData.setData('text/plain', text);
    ev.preventDefault();
  });

  function openFromLog(id) {
    $('f-state').value = '';
    showTab('queue');
    loadList().then(function () { return select(id); });
  }

  function showTab(tab) {
    S.tab = tab;
    $('tab-queue').className = 'tab' + (tab === 'queue' ? ' active' : '');
    $('tab-history').className = 'tab' + (tab === 'history' ? ' active' : '');
    $('queue-view').hidden = tab !== 'queue';
    $('history-view').hidden = tab !== 'history';
    if (tab === 'history') loadLog();
  }

  function live() {
    var es = new EventSource('/api/events');
    S.events = es;
    es.addEventListener('open', function () { $('live').className = 'live'; });
    es.addEventListener('error', function () { $('live').className = 'live off'; });
    es.addEventListener('queue', function () {
      loadList();
      loadConsent();
      if (S.selected && !S.confirm) loadDetail();
      if (S.tab === 'history') loadLog();
    });
    return es;
  }

  var events = null;
  function start() {
    document.body.removeAttribute('data-ready');
    login().then(function () {
      notice('');
      if (!events) events = live();
      return Promise.all([loadList(), loadConsent()]);
    }).then(function () { document.body.setAttribute('data-ready', '1'); })
      .catch(function (e) {
        notice(e && e.status === 401 || (e && e.doc && e.doc.code === 'FORBIDDEN') ? 'Not signed in: open the URL that vaultgate serve printed (it carries the token).' : describe(e), 'error');
        document.body.setAttribute('data-ready', '0');
      });
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('f-state').addEventListener('change', loadList);
    $('f-agent').addEventListener('change', loadList);
    $('tab-queue').addEventListener('click', function () { showTab('queue'); });
    $('tab-history').addEventListener('click', function () { showTab('history'); });
    /* The printed URL pasted into a tab that already shows the page changes only the fragment. */
    window.addEventListener('hashchange', function () { if (/token=/.test(location.hash)) start(); });
    start();
  });
})();
`;

/** The page's script with {@link visibleText}'s own source in place (one function for every face). */
const APP_JS_WITH_VISIBLE = APP_JS.replace('/*VISIBLE_TEXT*/ null', '(' + visibleText.toString() + ')').replace('/*DIFF_EMPHASIS*/ null', '(' + diffEmphasis.toString() + ')');

export interface Asset {
  body: string;
  type: string;
}

/** The static files by URL path. */
export const ASSETS: Readonly<Record<string, Asset>> = {
  '/': { body: INDEX_HTML, type: 'text/html; charset=utf-8' },
  '/app.js': { body: APP_JS_WITH_VISIBLE, type: 'text/javascript; charset=utf-8' },
  '/app.css': { body: APP_CSS, type: 'text/css; charset=utf-8' },
  '/favicon.svg': { body: FAVICON_SVG, type: 'image/svg+xml' },
};
