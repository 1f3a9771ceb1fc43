import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchEnv, GNU_TIME, interleave, run, summarize, type RunResult } from '../../../bench/lib/measure.js';

test('bench children never inherit NODE_EXTRA_CA_CERTS (it costs every Node start ~30 ms)', () => {
  const saved = process.env.NODE_EXTRA_CA_CERTS;
  process.env.NODE_EXTRA_CA_CERTS = '/nonexistent/ca.pem';
  try {
    assert.equal(benchEnv().NODE_EXTRA_CA_CERTS, undefined);
    const r = run(process.execPath, ['-e', 'process.stdout.write(String(process.env.NODE_EXTRA_CA_CERTS))']);
    assert.equal(r.stdout, 'undefined');
  } finally {
    if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = saved;
  }
});

test('bench run under GNU time reports peak RSS and keeps the child stderr clean', { skip: GNU_TIME === null && 'no /usr/bin/time' }, () => {
  const r = run(process.execPath, ['-e', 'process.stderr.write("child says hi")'], { rss: true });
  assert.equal(r.status, 0);
  assert.ok((r.maxRssKb ?? 0) > 1000, `maxRssKb ${r.maxRssKb}`);
  assert.equal(r.stderr, 'child says hi');
});

test('bench summary: median of odd and even sample counts', () => {
  assert.equal(summarize([5, 1, 3]).median, 3);
  assert.equal(summarize([4, 1, 3, 2]).median, 2.5);
  assert.deepEqual([summarize([4, 1, 3]).min, summarize([4, 1, 3]).max], [1, 4]);
});

test('bench interleave: one warm-up round, then A B, A B in turn', () => {
  const order: string[] = [];
  const fake = (name: string) => (): RunResult => {
    order.push(name);
    return { ms: 1, status: 0, stdout: '', stderr: '', maxRssKb: null };
  };
  const t = interleave(2, { a: fake('a'), b: fake('b') });
  assert.deepEqual(order, ['a', 'b', 'a', 'b', 'a', 'b']);
  assert.equal(t.a!.samples.length, 2);
});
