/**
 * Save and Ingest as scoped, reviewed workflows (issue 22 §3), through the real
 * CLI on temporary vaults: the vault's operation scopes held alike for bundles
 * and proposals (77, nothing written), content-addressed capture and its
 * dedupe, `ingest` of a Markdown and an HTML source filed as one proposal and
 * applied, `ingest --list` states, and review's `source` check.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';
import { makeBundle, writeBundleFile } from '../unit/txn/txn-helpers.js';

const sha = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');
type V = { root: string; home: string };
/** In-process CLI (same code path after argv) for the many small calls; the real binary for the end-to-end flows. */
const vg = (v: V, args: string[], cwd?: string) => runCli(args, { vault: v.root, home: v.home, ...(cwd ? { cwd } : {}) });
const bin = (v: V, args: string[], cwd?: string) => runCliProcess(args, { vault: v.root, home: v.home, ...(cwd ? { cwd } : {}) });

const CONFIG = `operations:
  capture:
    paths: [".raw/captured/**"]
    create_only: true
  save:
    paths: ["wiki/**", "index.md", "log.md"]
    files: markdown
  ingest:
    paths: [".raw/captured/**", "wiki/**", "index.md", "log.md"]
  lint-fix:
    paths: ["wiki/**"]
    files: markdown
  fold:
    paths: ["wiki/folds/**", "index.md", "log.md"]
    create_only: false
  canvas:
    paths: ["canvas/**"]
    files: non-markdown
ingest:
  index_note: index.md
  log_note: log.md
`;

function vault(extra: Record<string, string | Buffer> = {}): V {
  return tempVault({
    '.vaultgate/config.yaml': CONFIG,
    'wiki/Bread.md': '# Bread\n\nSourdough bread needs a starter and patience.\n',
    'wiki/Sky.md': '# Sky\n\nWhy the sky looks blue in daylight.\n',
    'index.md': '# Index\n\n- [[Bread]]\n- [[Sky]]\n',
    'log.md': '# Log\n',
    'Other/Loose.md': 'loose\n',
    ...extra,
  });
}

async function reviewHash(v: V, id: string): Promise<string> {
  const r = await vg(v, ['review', id]);
  assert.equal(r.exitCode, 0, r.stdout);
  return r.json.review_hash;
}

test('scopes: a proposal out of its type’s scope exits 77 naming the type, the path and the globs; nothing is stored or written', async () => {
  const v = vault();
  const before = snapshotTree(v.root, { includeHidden: true });
  const r = await vg(v, ['propose', 'Other/New.md', '--content', '# New\n', '--base', 'none', '--type', 'save']);
  assert.equal(r.exitCode, 77, r.stdout);
  assert.equal(r.json.error.code, 'OUT_OF_SCOPE');
  assert.match(r.json.error.message, /Other\/New\.md/);
  assert.match(r.json.error.message, /operation type save/);
  assert.match(r.json.error.message, /wiki\/\*\*, index\.md, log\.md/);
  assert.deepEqual(r.json.error.details.allowed_paths, ['wiki/**', 'index.md', 'log.md']);
  // a changes document's "type" is held to the same table
  const doc = path.join(path.dirname(v.root), 'save.json');
  fs.writeFileSync(doc, JSON.stringify({ title: 'x', type: 'save', changes: [{ path: 'wiki/ok.md', action: 'write', base: null, content: '# ok\n' }, { path: 'canvas/a.canvas', action: 'write', base: null, content: '{}' }] }));
  const d = await vg(v, ['propose', '--changes', doc]);
  assert.deepEqual([d.exitCode, d.json.error.code, d.json.error.path], [77, 'OUT_OF_SCOPE', 'canvas/a.canvas']);
  // create-only: fold may replace, capture may not
  const base = sha(fs.readFileSync(path.join(v.root, 'index.md')));
  const c = await vg(v, ['propose', 'index.md', '--append', '--content', '- [[New]]\n', '--base', base, '--type', 'capture']);
  assert.deepEqual([c.exitCode, c.json.error.code], [77, 'OUT_OF_SCOPE']);
  assert.match(c.json.error.message, /mode replace is not allowed/);
  // files: a canvas type refuses a note
  const k = await vg(v, ['propose', 'canvas/n.md', '--content', 'x', '--base', 'none', '--type', 'canvas']);
  assert.deepEqual([k.exitCode, k.json.error.code], [77, 'OUT_OF_SCOPE']);
  // an unknown type is a usage error (2), also nothing stored
  const u = await vg(v, ['propose', 'wiki/x.md', '--content', 'x', '--base', 'none', '--type', 'bogus']);
  assert.equal(u.exitCode, 2, u.stdout);
  assert.deepEqual(snapshotTree(v.root, { includeHidden: true }), before, 'vault unchanged, no proposal store even');
  const list = await vg(v, ['proposals']);
  assert.equal(list.json.total, 0);
  // in scope: stored, applied, and the type is the transaction's
  const ok = await vg(v, ['propose', 'wiki/New.md', '--content', '# New\n', '--base', 'none', '--type', 'save']);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.equal(ok.json.proposal.operation_type, 'save');
  const a = await vg(v, ['apply', ok.json.proposal.id, '--review-hash', await reviewHash(v, ok.json.proposal.id)]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.equal(fs.readFileSync(path.join(v.root, 'wiki/New.md'), 'utf8'), '# New\n');
  // the scope is checked again at review and apply: narrowed since, the proposal blocks and apply exits 77
  const later = await vg(v, ['propose', 'wiki/Later.md', '--content', '# Later\n', '--base', 'none', '--type', 'save']);
  assert.equal(later.json.proposal.state, 'pending');
  fs.writeFileSync(path.join(v.root, '.vaultgate/config.yaml'), CONFIG.replace('paths: ["wiki/**", "index.md", "log.md"]\n    files: markdown', 'paths: ["wiki/kept/**"]\n    files: markdown'));
  const rv = await vg(v, ['review', later.json.proposal.id]);
  assert.deepEqual(rv.json.checks.filter((c: any) => !c.ok).map((c: any) => [c.name, c.path]), [['scope', 'wiki/Later.md']]);
  const ap = await vg(v, ['apply', later.json.proposal.id, '--review-hash', later.json.review.review_hash]);
  assert.deepEqual([ap.exitCode, ap.json.error.code], [77, 'OUT_OF_SCOPE']);
  assert.equal(fs.existsSync(path.join(v.root, 'wiki/Later.md')), false);
});

test('scopes: a bundle (tx) is held to the same table: out of scope 77 before anything is written; in scope applies', async () => {
  const v = vault();
  await vg(v, ['init']);
  const before = snapshotTree(v.root);
  const run = async (op: string, type: string, writes: Parameters<typeof makeBundle>[2]) => {
    const file = writeBundleFile(path.dirname(v.root), makeBundle(v.root, op, writes, type), `${op}.json`);
    const i = await vg(v, ['tx', 'inspect', file]);
    if (i.exitCode !== 0) return { code: i.exitCode, json: i.json };
    const a = await vg(v, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
    return { code: a.exitCode, json: a.json };
  };
  const out = await run('op-out', 'save', [{ path: 'wiki/ok.md', mode: 'create', content: 'x' }, { path: 'Other/Loose.md', mode: 'replace', content: 'y' }]);
  assert.deepEqual([out.code, out.json.error.code, out.json.error.path], [77, 'OUT_OF_SCOPE', 'Other/Loose.md']);
  assert.match(out.json.error.message, /operation type save.*wiki\/\*\*/);
  const cap = await run('op-cap', 'capture', [{ path: '.raw/captured/abc.md', mode: 'create', content: 'x' }]);
  assert.equal(cap.code, 0, JSON.stringify(cap.json));
  const capOut = await run('op-cap2', 'capture', [{ path: 'wiki/abc.md', mode: 'create', content: 'x' }]);
  assert.deepEqual([capOut.code, capOut.json.error.code], [77, 'OUT_OF_SCOPE']);
  assert.deepEqual(snapshotTree(v.root), before, 'the refused bundles wrote nothing');
  assert.deepEqual(fs.readdirSync(path.join(v.root, '.raw/captured')), ['abc.md'], 'only the in-scope bundle wrote');
});

test('config: the operations table is strict (unknown key, bad glob, bad files kind refused with CONFIG_INVALID)', async () => {
  for (const bad of ['operations:\n  save:\n    paths: ["wiki/**"]\n    colour: red\n', 'operations:\n  save:\n    paths: ["wiki/{a,b}/**"]\n', 'operations:\n  save:\n    paths: ["wiki/**"]\n    files: pictures\n', 'operations:\n  save: {}\n', 'ingest:\n  drop: inbox\n']) {
    const v = tempVault({ '.vaultgate/config.yaml': bad, 'a.md': 'a\n' });
    const r = await vg(v, ['propose', 'b.md', '--content', 'b', '--base', 'none']);
    assert.equal(r.json?.error?.code, 'CONFIG_INVALID', `${bad}: ${r.stdout}`);
  }
});

test('capture: exact bytes at .raw/captured/<sha256>.<ext>, create-only; the same bytes again are a no-op naming the existing file', async () => {
  const v = vault();
  const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256)); // every byte value: not text
  const outside = path.join(path.dirname(v.root), 'scan.pdf');
  fs.writeFileSync(outside, bytes);
  const p = await bin(v, ['propose', '--capture', outside, '--type', 'capture']);
  assert.equal(p.exitCode, 0, p.stdout + p.stderr);
  const captured = `.raw/captured/${sha(bytes)}.pdf`;
  assert.deepEqual(p.json.proposal.files.map((f: any) => [f.path, f.action, f.base_sha256, f.new_sha256, f.captured_from]), [[captured, 'write', null, sha(bytes), outside]]);
  assert.equal(p.json.proposal.state, 'pending', JSON.stringify(p.json.review.checks.filter((c: any) => !c.ok)));
  assert.match(p.json.review.diff, /captured from .*scan\.pdf \(512 bytes, sha256 /);
  assert.equal(fs.existsSync(path.join(v.root, '.raw')), false, 'propose writes nothing');
  const a = await bin(v, ['apply', p.json.proposal.id, '--review-hash', p.json.review.review_hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.ok(fs.readFileSync(path.join(v.root, captured)).equals(bytes), 'the exact bytes');
  // ingest of a file with no text (a PDF): the capture is offered, no fragments, a warning; it says it is captured
  const pdf = await vg(v, ['ingest', outside]);
  assert.equal(pdf.exitCode, 0, pdf.stdout);
  assert.deepEqual([pdf.json.source.kind, pdf.json.fragments, pdf.json.status.state, pdf.json.captured.existing], [null, [], 'applied', true]);
  assert.match(pdf.json.warnings.join(' '), /Markdown, plain text and HTML/);
  // a vault source is read as every vault file is: never through a symbolic link on its path
  const outDir = path.join(path.dirname(v.root), 'elsewhere');
  fs.mkdirSync(outDir);
  fs.writeFileSync(path.join(outDir, 'secret.md'), 'secret\n');
  fs.symlinkSync(outDir, path.join(v.root, 'inbox-link'));
  const viaLink = await vg(v, ['propose', '--capture', 'inbox-link/secret.md'], v.root);
  assert.equal(viaLink.json?.error?.code, 'PATH_SYMLINK', viaLink.stdout);
  const ingestLink = await vg(v, ['ingest', 'inbox-link/secret.md'], v.root);
  assert.equal(ingestLink.json?.error?.code, 'PATH_SYMLINK', ingestLink.stdout);
  fs.rmSync(path.join(v.root, 'inbox-link'));
  // again: nothing stored, the answer names the existing file
  const again = await bin(v, ['propose', '--capture', outside, '--type', 'capture']);
  assert.deepEqual([again.exitCode, again.json.error.code, again.json.error.path], [2, 'PROPOSAL_NOOP', captured]);
  assert.match(again.json.error.message, new RegExp(`already captured as ${captured.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.equal((await vg(v, ['proposals'])).json.total, 1);
  // beside other changes, an existing capture is left out and said so
  const doc = path.join(path.dirname(v.root), 'c.json');
  fs.writeFileSync(doc, JSON.stringify({ title: 'note on scan', type: 'ingest', changes: [{ action: 'capture', source: outside }, { path: 'wiki/Scan.md', action: 'write', base: null, content: '# Scan\n' }] }));
  const mixed = await bin(v, ['propose', '--changes', doc]);
  assert.equal(mixed.exitCode, 0, mixed.stdout);
  assert.deepEqual(mixed.json.proposal.files.map((f: any) => f.path), ['wiki/Scan.md']);
  assert.deepEqual(mixed.json.captures.map((c: any) => [c.path, c.existing]), [[captured, true]]);
  // the same bytes named twice in one proposal are one capture
  const twice = path.join(path.dirname(v.root), 'twice.json');
  const copy = path.join(path.dirname(v.root), 'copy of scan.txt');
  fs.writeFileSync(copy, 'plain words\n');
  fs.writeFileSync(twice, JSON.stringify({ title: 'twice', type: 'capture', changes: [{ action: 'capture', source: copy }, { action: 'capture', source: copy }] }));
  const t = await vg(v, ['propose', '--changes', twice]);
  assert.equal(t.exitCode, 0, t.stdout);
  assert.deepEqual(t.json.proposal.files.map((f: any) => f.path), [`.raw/captured/${sha('plain words\n')}.txt`]);
  // a capture type refuses a capture outside the captured folder (the folder is configurable)
  const moved = tempVault({ '.vaultgate/config.yaml': CONFIG.replace('ingest:\n  index_note', 'ingest:\n  captured_folder: raw/sources\n  index_note'), 'a.md': 'a\n' });
  const elsewhere = await vg(moved, ['propose', '--capture', outside, '--type', 'capture']);
  assert.deepEqual([elsewhere.exitCode, elsewhere.json.error.code], [77, 'OUT_OF_SCOPE'], 'raw/sources/ is outside capture’s .raw/captured/**');
  const generic = await vg(moved, ['propose', '--capture', outside]);
  assert.equal(generic.exitCode, 0, generic.stdout);
  assert.equal(generic.json.proposal.files[0].path, `raw/sources/${sha(bytes)}.pdf`);
});

/** The one proposal an agent files a source as: capture + new note quoting it + index and log lines. */
function filing(v: V, ing: any, note: { path: string; text: string }) {
  const idx = ing.index_note;
  const log = ing.log_note;
  const name = note.path.replace(/^.*\//, '').replace(/\.md$/, '');
  return {
    title: `Ingest ${ing.source.path}`,
    type: 'ingest',
    changes: [
      ing.captured.existing ? null : ing.capture,
      { path: note.path, action: 'write', base: null, content: note.text },
      { path: idx.path, action: 'write', base: idx.sha256, content: fs.readFileSync(path.join(v.root, idx.path), 'utf8') + `- [[${name}]]\n` },
      { path: log.path, action: 'write', base: log.sha256, content: fs.readFileSync(path.join(v.root, log.path), 'utf8') + `- ingested ${ing.source.path} as [[${name}]]\n` },
    ].filter(Boolean),
  };
}

test('ingest: a Markdown source in the drop folder, read, filed as one proposal and applied; --list follows it', async () => {
  const src = '# Starter care\n\nA sourdough starter needs feeding every day. Flour and water are enough.\n\n## Timing\n\nFeed it after the bread is baked.\n';
  const v = vault({ 'inbox/starter.md': src });
  const before = snapshotTree(v.root, { includeHidden: true });
  const listed = await bin(v, ['ingest', '--list']);
  assert.equal(listed.exitCode, 0, listed.stdout + listed.stderr);
  assert.deepEqual(listed.json.sources.map((s: any) => [s.path, s.state]), [['inbox/starter.md', 'new']]);
  const r = await bin(v, ['ingest', 'inbox/starter.md', '--into', 'wiki'], v.root);
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  const ing = r.json;
  assert.deepEqual(ing.source, { path: 'inbox/starter.md', kind: 'markdown', bytes: Buffer.byteLength(src), sha256: sha(src) });
  assert.deepEqual([ing.capture, ing.captured], [{ action: 'capture', source: 'inbox/starter.md' }, { path: `.raw/captured/${sha(src)}.md`, existing: false }]);
  assert.equal(ing.suggested_note, 'wiki/Starter care.md');
  assert.deepEqual(ing.fragments.map((f: any) => [f.id, f.lines, f.heading_path]), [['f1', [3, 3], ['Starter care']], ['f2', [7, 7], ['Starter care', 'Timing']]]);
  assert.equal(ing.fragments[0].text, 'A sourdough starter needs feeding every day. Flour and water are enough.');
  assert.ok(ing.suggested_links.some((l: any) => l.path === 'wiki/Bread.md' && l.link === '[[Bread]]'), JSON.stringify(ing.suggested_links));
  assert.deepEqual(ing.index_note, { path: 'index.md', sha256: sha(fs.readFileSync(path.join(v.root, 'index.md'))) });
  assert.equal(ing.log_note.path, 'log.md');
  assert.deepEqual(snapshotTree(v.root, { includeHidden: true }), before, 'ingest writes nothing');

  const note = { path: 'wiki/Starter care.md', text: `---\nsource: ${ing.captured.path}\n---\n# Starter care\n\nFrom the drop folder; see [[Bread]].\n\n> A sourdough starter needs feeding every day.\n\nMy summary: feed daily.\n` };
  const doc = path.join(path.dirname(v.root), 'ingest.json');
  fs.writeFileSync(doc, JSON.stringify(filing(v, ing, note)));
  // from another working folder: the capture change as ingest gave it (a vault path) still names the source
  const p = await bin(v, ['propose', '--changes', doc]);
  assert.equal(p.exitCode, 0, p.stdout + p.stderr);
  assert.equal(p.json.proposal.state, 'pending', JSON.stringify(p.json.review.checks.filter((c: any) => !c.ok)));
  assert.equal(p.json.proposal.operation_type, 'ingest');
  assert.deepEqual(p.json.review.checks.filter((c: any) => c.name === 'source').map((c: any) => c.ok), [true]);
  assert.equal((await bin(v, ['ingest', '--list'])).json.sources[0].state, 'proposed');
  const a = await bin(v, ['apply', p.json.proposal.id, '--review-hash', p.json.review.review_hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.deepEqual(a.json.changed_paths, [ing.captured.path, note.path, 'index.md', 'log.md']);
  assert.equal(fs.readFileSync(path.join(v.root, ing.captured.path), 'utf8'), src);
  assert.equal(fs.readFileSync(path.join(v.root, note.path), 'utf8'), note.text);
  assert.match(fs.readFileSync(path.join(v.root, 'index.md'), 'utf8'), /- \[\[Starter care\]\]\n$/);
  const after = await bin(v, ['ingest', '--list']);
  assert.deepEqual(after.json.sources.map((s: any) => [s.path, s.state, s.captured]), [['inbox/starter.md', 'applied', true]]);
  // ingesting it again says it is captured
  const again = await bin(v, ['ingest', 'inbox/starter.md'], v.root);
  assert.deepEqual([again.json.status.state, again.json.captured.existing], ['applied', true]);
  assert.match(again.json.warnings.join(' '), /already captured as \.raw\/captured\//);
});

test('ingest: an HTML source is read as Markdown (turndown), its quotes checked against that text, filed and applied', async () => {
  const html = '<!doctype html><html><head><title>ignored</title><style>p{color:red}</style><script>steal()</script></head><body>' +
    '<h1>Blue skies</h1><p>Sunlight is scattered by the <em>air</em> molecules. Blue light scatters more than red light.</p>' +
    '<p>See <a href="https://example.org/sky">the source</a> for more.</p></body></html>';
  const v = vault({ 'inbox/sky.html': html });
  const r = await bin(v, ['ingest', 'inbox/sky.html', '--into', 'wiki'], v.root);
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  const ing = r.json;
  assert.equal(ing.source.kind, 'html');
  assert.equal(ing.captured.path, `.raw/captured/${sha(html)}.html`);
  assert.equal(ing.title, 'Blue skies');
  const texts = ing.fragments.map((f: any) => f.text);
  assert.deepEqual(texts, ['Sunlight is scattered by the *air* molecules. Blue light scatters more than red light.', 'See [the source](https://example.org/sky) for more.']);
  assert.ok(!JSON.stringify(ing).includes('steal()') && !texts.includes('ignored'), 'script, style and head are not text');
  assert.ok(ing.suggested_links.some((l: any) => l.path === 'wiki/Sky.md'), JSON.stringify(ing.suggested_links));

  const doc = path.join(path.dirname(v.root), 'sky.json');
  // a paraphrase inside a quote blocks (source check); nothing else does
  const bad = { path: 'wiki/Blue skies.md', text: '# Blue skies\n\n> Sunlight is scattered by air molecules.\n> Blue light scatters far more than red light.\n' };
  fs.writeFileSync(doc, JSON.stringify(filing(v, ing, bad)));
  const blocked = await bin(v, ['propose', '--changes', doc], v.root);
  assert.equal(blocked.exitCode, 0, blocked.stdout);
  assert.equal(blocked.json.proposal.state, 'blocked');
  const failing = blocked.json.review.checks.filter((c: any) => !c.ok);
  assert.deepEqual(failing.map((c: any) => [c.name, c.severity, c.path, c.details.line]), [['source', 'block', 'wiki/Blue skies.md', 3], ['source', 'block', 'wiki/Blue skies.md', 4]]);
  assert.match(failing[0].message, /:3: the quote "Sunlight is scattered by air molecules\." is not word for word/);
  assert.match(failing[1].message, /:4: the quote "Blue light scatters far more than red light\." is not word for word/);
  const refused = await bin(v, ['apply', blocked.json.proposal.id, '--review-hash', '0'.repeat(64)]);
  assert.notEqual(refused.exitCode, 0);
  assert.equal(fs.existsSync(path.join(v.root, 'wiki/Blue skies.md')), false);
  await vg(v, ['decline', blocked.json.proposal.id, '--reason', 'misquotes the source']);
  assert.deepEqual((await vg(v, ['ingest', '--list'])).json.sources.map((s: any) => s.state), ['declined']);

  // quoted exactly (emphasis and link markup are not words): pending, applied
  const good = { path: 'wiki/Blue skies.md', text: '# Blue skies\n\n> [!quote] From the page\n> Sunlight is scattered by the air molecules. Blue light scatters more than red light.\n> See the source for more.\n\nWhy it matters: daylight colour.\n' };
  fs.writeFileSync(doc, JSON.stringify(filing(v, ing, good)));
  const p = await bin(v, ['propose', '--changes', doc], v.root);
  assert.equal(p.json.proposal.state, 'pending', JSON.stringify(p.json.review.checks.filter((c: any) => !c.ok)));
  const a = await bin(v, ['apply', p.json.proposal.id, '--review-hash', p.json.review.review_hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.equal(fs.readFileSync(path.join(v.root, ing.captured.path), 'utf8'), html);
  assert.equal((await vg(v, ['ingest', '--list'])).json.sources[0].state, 'applied');
});

test('source check: the source’s sha256 is pinned; a source changed after propose blocks review and apply exits 75 with nothing written', async () => {
  const src = 'Plain text source. It has two sentences.\n';
  const v = vault({ 'inbox/plain.txt': src });
  const ing = (await vg(v, ['ingest', 'inbox/plain.txt'], v.root)).json;
  const doc = path.join(path.dirname(v.root), 'plain.json');
  fs.writeFileSync(doc, JSON.stringify(filing(v, ing, { path: 'wiki/Plain.md', text: '# Plain\n\n> It has two sentences.\n' })));
  const p = await vg(v, ['propose', '--changes', doc], v.root);
  assert.equal(p.json.proposal.state, 'pending', JSON.stringify(p.json.review.checks.filter((c: any) => !c.ok)));
  fs.appendFileSync(path.join(v.root, 'inbox/plain.txt'), 'A third one.\n');
  const before = snapshotTree(v.root);
  const a = await bin(v, ['apply', p.json.proposal.id, '--review-hash', p.json.review.review_hash]);
  assert.deepEqual([a.exitCode, a.json.error.code, a.json.error.path], [75, 'STALE_HASH', 'inbox/plain.txt']);
  assert.deepEqual(snapshotTree(v.root), before, 'nothing written');
  assert.equal(fs.existsSync(path.join(v.root, '.raw')), false, 'not the capture either');
  const r = await vg(v, ['review', p.json.proposal.id]);
  assert.deepEqual(r.json.checks.filter((c: any) => !c.ok).map((c: any) => [c.name, c.path]), [['source', 'inbox/plain.txt']]);
});

test('ingest --list: a capture written by a bundle shows as captured; a proposal waiting as proposed; an empty or absent drop folder lists nothing', async () => {
  const v = vault({ 'inbox/a.md': '# A\n\nalpha\n', 'inbox/sub/b.txt': 'beta\n', 'inbox/.hidden': 'x' });
  await vg(v, ['init']);
  const file = writeBundleFile(path.dirname(v.root), makeBundle(v.root, 'cap-a', [{ path: `.raw/captured/${sha('# A\n\nalpha\n')}.md`, mode: 'create', content: '# A\n\nalpha\n' }], 'capture'), 'cap.json');
  const i = await vg(v, ['tx', 'inspect', file]);
  assert.equal((await vg(v, ['tx', 'apply', file, '--approval', i.json.approval_sha256])).exitCode, 0);
  const p = await vg(v, ['propose', '--capture', 'inbox/sub/b.txt'], v.root);
  assert.equal(p.exitCode, 0, p.stdout);
  const l = await vg(v, ['ingest', '--list']);
  assert.deepEqual(l.json.sources.map((s: any) => [s.path, s.state, s.proposals.map((x: any) => x.id)]), [
    ['inbox/a.md', 'captured', []],
    ['inbox/sub/b.txt', 'proposed', [p.json.proposal.id]],
  ]);
  const text = await vg(v, ['ingest', '--list', '--text']);
  assert.match(text.stdout, /captured\s+inbox\/a\.md/);
  const empty = vault();
  assert.deepEqual((await vg(empty, ['ingest', '--list'])).json.sources, []);
});
