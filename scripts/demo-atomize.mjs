// `npm run demo -- atomize`: the atomize pipeline over examples/atomize/lanternfall.md
// (an original ~31 KB rules book with tables, lists and an example-of-play chapter),
// with a fake OpenAI-compatible chat server standing in for a local model: it
// answers each chunk extractively from the book's own glossary (every sentence
// of the chunk that mentions a glossary term), breaks the schema once, and
// invents one sentence, so every step has something to show. Prints each
// step's output, the time each took, and the numbers at the end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'dist/cli/main.cjs');
const bookFile = path.join(repo, 'examples/atomize/lanternfall.md');
const book = fs.readFileSync(bookFile, 'utf8');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-atomize-demo-'));
const vault = path.join(base, 'vault');
const work = path.join(base, 'work');
const home = path.join(base, 'home');
fs.mkdirSync(path.join(vault, 'Books'), { recursive: true });
fs.copyFileSync(bookFile, path.join(vault, 'Books', 'Lanternfall.md'));
fs.writeFileSync(path.join(vault, 'Home.md'), '# Home\n\nThe rules live in [[Lanternfall]].\n');

// ---- the fake model ------------------------------------------------------------
const glossary = new Map();
for (const line of book.slice(book.indexOf('## Glossary')).split('\n')) {
  const m = /^\| ([^|]+?) \| ([a-z]+) \|/.exec(line);
  if (m && m[1] !== 'Term') glossary.set(m[1], m[2]);
}
const terms = [...glossary.keys()].sort((a, b) => b.length - a.length);
const INVENTED = 'Snow doubles the cost of every lantern.';
const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const mentions = (text, term) => new RegExp(`(?<![\\p{L}])${escape(term)}s?(?![\\p{L}])`, 'iu').test(text);

function sentencesOf(chunk) {
  const out = [];
  for (const line of chunk.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#') || /^\|?[\s:|-]+\|[\s:|-]*$/.test(t) || /^\| (Term|Rating|Calling|Lantern state|Shade|Action|District|Faction|Item|Roll|Law) \|/.test(t)) continue;
    if (t.startsWith('|')) out.push(t);
    else for (const { segment } of segmenter.segment(t)) if (segment.trim()) out.push(segment.trim());
  }
  return out;
}

let requests = 0;
let brokeOnce = false;
function answer(chunk) {
  if (chunk.includes('## Dawn') && !brokeOnce) {
    brokeOnce = true;
    return { entities: [{ name: 'Dawn', kind: 'concept' }] }; // breaks the schema: no aliases, no sentences
  }
  const sentences = sentencesOf(chunk);
  const entities = [];
  for (const term of terms) {
    const own = sentences.filter((s) => mentions(s, term));
    if (own.length === 0) continue;
    entities.push({ name: term, kind: glossary.get(term), aliases: own.some((s) => mentions(s, term + 's') && new RegExp(`${escape(term)}s\\b`, 'u').test(s)) ? [term + 's'] : [], sentences: own });
  }
  if (chunk.includes('## Weather') && entities[0]) entities[0].sentences.push(INVENTED);
  return { entities };
}

const server = http.createServer((req, res) => {
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    requests++;
    const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    const chunk = body.messages.find((m) => m.role === 'user').content;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'demo', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(answer(chunk)) }, finish_reason: 'stop' }] }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/v1`;
fs.mkdirSync(path.join(home, 'config'), { recursive: true });
fs.writeFileSync(path.join(home, 'config', 'config.yaml'), JSON.stringify({ providers: { fake: { kind: 'openai', url, chat_model: 'scripted-extractive', attempts: 1 } } }));

// ---- the pipeline --------------------------------------------------------------
const env = { ...process.env, VAULTGATE_HOME: home };
delete env.VAULTGATE_VAULT;
const timings = [];
let failures = 0;
async function vg(args, { expectExit = 0, show = (j) => j } = {}) {
  console.log(`\n$ vaultgate ${args.map((a) => (/[\s'"]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  const t0 = performance.now();
  // async spawn: the fake model answers in this process, so it must not be blocked
  const r = await new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, '--vault', vault, ...args, '--json'], { env, cwd: base });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  const ms = performance.now() - t0;
  if (args[0] === 'atomize') timings.push([args[1], ms]);
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  if (r.status !== expectExit) {
    failures++;
    console.log(`  !! exit ${r.status} (expected ${expectExit})\n${r.stdout}${r.stderr}`);
    return json;
  }
  console.log(
    JSON.stringify(show(json), null, 2)
      .split('\n')
      .slice(0, 40)
      .map((l) => '  ' + l)
      .join('\n'),
  );
  return json;
}

console.log(`atomize demo: ${path.relative(repo, bookFile)} (${Buffer.byteLength(book)} bytes) in a vault at ${vault}, work folder ${work}`);
await vg(['atomize', 'init', 'Books/Lanternfall.md', '--work', work, '--into', 'Rules/Lanternfall', '--narrative', 'Example of play'], { show: (j) => ({ source: j.source, chapters: j.chapters.length, narrative: j.narrative }) });
const chunked = await vg(['atomize', 'chunk', '--work', work, '--max-chars', '2000']);
const extracted = await vg(['atomize', 'extract', '--work', work, '--provider', 'fake'], { show: (j) => ({ ...j, sent: j.sent && { destination: j.sent.destination, loopback: j.sent.loopback, requests: j.sent.requests, request_bytes: j.sent.request_bytes } }) });
console.log('\n  (the same command again asks nothing: every chunk is done)');
const again = await vg(['atomize', 'extract', '--work', work, '--provider', 'fake'], { show: (j) => ({ asked: j.asked, skipped: j.skipped, requests: j.requests }) });
await vg(['atomize', 'tidy', '--work', work]);
const wrote = await vg(['atomize', 'write', '--work', work]);
const firstNote = fs.readdirSync(path.join(work, 'notes')).find((n) => n === 'Long Man.md') ?? fs.readdirSync(path.join(work, 'notes'))[0];
const stripped = await vg(['atomize', 'strip', '--work', work]);
console.log(`\n  draft ${firstNote} after strip:\n` + fs.readFileSync(path.join(work, 'notes', firstNote), 'utf8').split('\n').map((l) => '    ' + l).join('\n'));
const checked = await vg(['atomize', 'check', '--work', work], { show: (j) => ({ ...j, novel: j.novel }) });
const promoted = await vg(['atomize', 'promote', '--work', work]);
await vg(['atomize', 'status', '--work', work], { show: (j) => j.steps.map((s) => `${s.step}: ${s.status} — ${s.detail}`) });
if (promoted?.proposals?.[0]) {
  await vg(['review', promoted.proposals[0].id], { show: (j) => j.checks.filter((c) => c.name === 'verbatim' || !c.ok).map((c) => `${c.name} ${c.ok ? 'ok' : c.severity}: ${c.message}`) });
}
server.close();

console.log('\n## The numbers');
console.log(`  source:        ${Buffer.byteLength(book)} bytes, ${book.split('\n').length} lines`);
console.log(`  chunks:        ${chunked?.chunks}`);
console.log(`  requests:      ${requests} (one retry for the answer that broke the schema; the second extract asked ${again?.asked ?? '?'})`);
console.log(`  entities:      ${extracted?.entities}`);
console.log(`  notes:         ${wrote?.notes} drafts (${wrote?.narrative_only} narrative-only entities without a note), plus the map of content`);
console.log(`  links added:   ${wrote?.links_added} by write, ${stripped?.links_added} more by strip`);
console.log(`  narrative:     ${stripped?.lines_removed} lines stripped from ${stripped?.notes_changed} drafts`);
console.log(`  sentences:     ${checked?.sentences}, ${checked?.verbatim} verbatim, ${checked?.novel?.length} novel`);
console.log(`  proposals:     ${promoted?.proposals?.map((p) => `${p.id} (${p.notes} notes, ${p.state}${p.blocking.length ? `, blocked by ${p.blocking.join(', ')}` : ''})`).join('; ')}`);
console.log('  time per step: ' + timings.map(([s, ms]) => `${s} ${Math.round(ms)} ms`).join(', '));
if (failures) {
  console.log(`\n${failures} step(s) did not exit as expected`);
  process.exit(1);
}
