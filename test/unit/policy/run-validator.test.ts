import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runValidator, MAX_VALIDATOR_INPUT_BYTES, MAX_VALIDATOR_OUTPUT_BYTES, type ValidatorResult } from '../../../src/policy/index.js';
import { tempDir } from '../../helpers/temp-vault.js';

/**
 * The validator runs in a child process with a timeout, a memory cap and
 * bounded output (issue 8 §4). Each misbehaviour ends as an outcome, never as
 * an exception or a hung review. A small heap keeps the memory tests fast; the
 * timeout is long (a busy machine starts Node slowly) except where the timeout
 * itself is tested.
 */
const LIMITS = { timeoutMs: 30_000, memoryMb: 48 };

async function run(source: string, input: unknown = { files: [] }, limits: { timeoutMs: number; memoryMb: number } = LIMITS): Promise<ValidatorResult> {
  const dir = tempDir('vaultgate-validator-');
  const file = path.join(dir, 'validate.mjs');
  fs.writeFileSync(file, source);
  return runValidator(file, input, limits);
}

const READ_INPUT = `let t = ''; for await (const c of process.stdin) t += c; const input = JSON.parse(t);\n`;

test('validator: a good validator answers ok, with its messages', async () => {
  const r = await run(READ_INPUT + `console.log(JSON.stringify({ok: true, messages: ['saw ' + input.files.length + ' files']}));`, { files: [1, 2] });
  assert.deepEqual([r.outcome, r.ok, r.messages, r.problem], ['answered', true, ['saw 2 files'], null]);
});

test('validator: a failing validator answers not ok with its reasons', async () => {
  const r = await run(READ_INPUT + `console.log(JSON.stringify({ok: false, messages: ['Quotes/q.md: no source']}));`);
  assert.deepEqual([r.outcome, r.ok, r.messages], ['answered', false, ['Quotes/q.md: no source']]);
});

test('validator: one that loops forever is killed at the timeout', async () => {
  const r = await run('for (;;) {}\n', undefined, { ...LIMITS, timeoutMs: 1_500 });
  assert.equal(r.outcome, 'timeout');
  assert.equal(r.ok, false);
  assert.match(r.problem!, /did not answer within 1500 ms/);
});

test('validator: one that allocates without bound (heap) is stopped by the memory cap', async () => {
  const r = await run(`const a = []; for (;;) a.push({ n: a.length, s: 'x'.repeat(64) + a.length });\n`);
  assert.equal(r.outcome, 'out_of_memory', JSON.stringify(r));
  assert.equal(r.ok, false);
});

test('validator: one that allocates without bound outside the heap (buffers) is stopped too', { skip: process.platform !== 'linux' && 'RSS is watched on Linux only' }, async () => {
  const r = await run(`const a = []; for (;;) a.push(Buffer.alloc(8 * 1024 * 1024, 1));\n`);
  assert.equal(r.outcome, 'out_of_memory', JSON.stringify(r));
});

test('validator: garbage, wrong shapes and extra keys are bad answers', async () => {
  const cases: [string, RegExp][] = [
    [`console.log('looks fine to me');`, /not one strict JSON document/],
    [`console.log('{"ok": true, "messages": []} and more');`, /not one strict JSON document/],
    [`console.log('{"ok": false, "ok": true, "messages": []}');`, /duplicate key/],
    [`console.log(JSON.stringify({ok: 'yes', messages: []}));`, /"ok": true or false/],
    [`console.log(JSON.stringify({ok: true}));`, /"messages": a list of strings/],
    [`console.log(JSON.stringify({ok: true, messages: [1]}));`, /"messages": a list of strings/],
    [`console.log(JSON.stringify({ok: true, messages: [], approve: 'all'}));`, /unknown key "approve"/],
    [`console.log(JSON.stringify([true]));`, /not a JSON object/],
    [``, /printed nothing/],
    [`process.stdout.write(Buffer.from([0xff, 0xfe]));`, /not UTF-8/],
  ];
  for (const [source, re] of cases) {
    const r = await run(source);
    assert.equal(r.outcome, 'bad_answer', source);
    assert.equal(r.ok, false);
    assert.match(r.problem!, re, source);
  }
});

test('validator: a crash or a non-zero exit is a crash, with the error’s message', async () => {
  const r = await run(`throw new Error('cannot parse the note');\n`);
  assert.equal(r.outcome, 'crashed');
  assert.match(r.problem!, /exited with code 1: .*cannot parse the note/);
  const answered = await run(`console.log(JSON.stringify({ok: true, messages: []})); process.exit(3);\n`);
  assert.equal(answered.outcome, 'crashed', 'an answer followed by a failing exit is not trusted');
  const syntax = await run(`this is not javascript\n`);
  assert.equal(syntax.outcome, 'crashed');
});

test('validator: output over the bound is cut off and refused; an unread stdin is fine', async () => {
  const r = await run(`const s = 'x'.repeat(1 << 16); for (;;) process.stdout.write(s);\n`);
  assert.equal(r.outcome, 'output_too_large');
  assert.match(r.problem!, new RegExp(`more than ${MAX_VALIDATOR_OUTPUT_BYTES} bytes`));
  const big = await run(`console.log(JSON.stringify({ok: true, messages: []}));\n`, { files: ['y'.repeat(4 << 20)] });
  assert.equal(big.outcome, 'answered', 'exiting without reading a large input is not an error');
});

test('validator: an empty environment, and (with the permission model) no reads outside its folder, no writes, no child processes', async () => {
  const outside = path.join(tempDir(), 'secret.txt');
  fs.writeFileSync(outside, 'secret');
  const r = await run(`import fs from 'node:fs';
    const tryIt = (f) => { try { f(); return 'allowed'; } catch (e) { return e.code ?? e.message; } };
    const read = tryIt(() => fs.readFileSync(${JSON.stringify(outside)}));
    const write = tryIt(() => fs.writeFileSync(${JSON.stringify(outside)}, 'x'));
    const spawn = await import('node:child_process').then((cp) => tryIt(() => cp.execFileSync('true')));
    console.log(JSON.stringify({ok: true, messages: [JSON.stringify(process.env), read, write, spawn]}));`);
  assert.equal(r.outcome, 'answered', JSON.stringify(r));
  assert.equal(r.messages[0], '{}', 'no environment: API keys never reach a validator');
  if (r.sandboxed) {
    assert.deepEqual(r.messages.slice(1), ['ERR_ACCESS_DENIED', 'ERR_ACCESS_DENIED', 'ERR_ACCESS_DENIED']);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'secret');
  }
});

test('validator: an input over the limit is not sent; a missing script is a spawn failure', async () => {
  const dir = tempDir();
  const missing = await runValidator(path.join(dir, 'validate.mjs'), {}, LIMITS);
  assert.equal(missing.outcome, 'spawn_failed');
  const script = path.join(dir, 'ok.mjs');
  fs.writeFileSync(script, `console.log('{"ok":true,"messages":[]}')`);
  const huge = await runValidator(script, { text: 'y'.repeat(MAX_VALIDATOR_INPUT_BYTES) }, LIMITS);
  assert.equal(huge.outcome, 'input_too_large');
});
