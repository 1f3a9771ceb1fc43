import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { requireWithCodeCache } from '../../../src/cli/code-cache.js';

function bundle(): { dir: string; file: string; cacheFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vg-code-cache-'));
  const file = path.join(dir, 'bundle.cjs');
  // Enough code for V8 to cache, a CommonJS export, and the wrapper's arguments in use.
  const body = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i}; }`).join('\n');
  fs.writeFileSync(file, `"use strict";\n${body}\nexports.sum = (n) => { let s = 0; for (let i = 0; i < n; i++) s += f7(i); return s; };\nexports.where = __filename;\nexports.req = typeof require('node:path').join;\n`);
  return { dir, file, cacheFile: path.join(dir, 'cache', 'build-a.bin') };
}

test('code cache: the first load compiles and writes the cache, the next compiles from it, with the same exports', () => {
  const { file, cacheFile } = bundle();
  const first = requireWithCodeCache(file, cacheFile);
  assert.equal(first.cache, 'none');
  assert.equal((first.exports.sum as (n: number) => number)(10), 7 * 45 + 70);
  assert.equal(first.exports.where, file);
  assert.equal(first.exports.req, 'function');
  first.save();
  assert.ok(fs.statSync(cacheFile).size > 0);
  assert.equal(fs.statSync(cacheFile).mode & 0o777, 0o600);
  const second = requireWithCodeCache(file, cacheFile);
  assert.equal(second.cache, 'used');
  assert.equal((second.exports.sum as (n: number) => number)(10), 7 * 45 + 70);
  const before = fs.statSync(cacheFile).mtimeMs;
  second.save();
  assert.equal(fs.statSync(cacheFile).mtimeMs, before, 'an accepted cache is not written again');
});

test('code cache: a damaged or foreign cache is refused by V8 and replaced; other builds\' caches go; an unwritable root is ignored', () => {
  const { dir, file, cacheFile } = bundle();
  fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
  fs.writeFileSync(cacheFile, Buffer.from('not a V8 code cache at all'));
  fs.writeFileSync(path.join(dir, 'cache', 'build-old.bin'), 'x');
  const loaded = requireWithCodeCache(file, cacheFile);
  assert.equal(loaded.cache, 'rejected');
  assert.equal((loaded.exports.sum as (n: number) => number)(3), 7 * 3 + 21);
  loaded.save();
  assert.equal(requireWithCodeCache(file, cacheFile).cache, 'used');
  assert.deepEqual(fs.readdirSync(path.dirname(cacheFile)), ['build-a.bin']);

  // The source changed under the same build name (a dev rebuild): refused, not run stale.
  fs.appendFileSync(file, 'exports.extra = 42;\n');
  const changed = requireWithCodeCache(file, cacheFile);
  assert.equal(changed.cache, 'rejected');
  assert.equal(changed.exports.extra, 42);

  // `keep` spares siblings (main.ts: the other verbs' caches of the same build).
  fs.writeFileSync(path.join(dir, 'cache', 'build-a-other.bin'), 'x');
  const other = path.join(dir, 'cache', 'build-a-mine.bin');
  requireWithCodeCache(file, other, (name) => name.startsWith('build-a-')).save();
  assert.deepEqual(fs.readdirSync(path.dirname(cacheFile)).sort(), ['build-a-mine.bin', 'build-a-other.bin']);

  // A cache root that is a file: nothing written, nothing thrown.
  const blocked = path.join(dir, 'blocked');
  fs.writeFileSync(blocked, '');
  const noRoot = requireWithCodeCache(file, path.join(blocked, 'x.bin'));
  noRoot.save();
  assert.equal(requireWithCodeCache(file, null).cache, 'none');
  fs.rmSync(dir, { recursive: true, force: true });
});
