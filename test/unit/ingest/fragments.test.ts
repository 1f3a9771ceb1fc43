import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fragmentsOf } from '../../../src/ingest/index.js';
import { sourceText } from '../../../src/markdown/source-text.js';

test('fragments: paragraphs, lists and fenced blocks under their heading path, with 1-based line spans', () => {
  const text = '# A\n\nOne.\nTwo.\n\n## B\n\n- x\n- y\n\n```\ncode\n\nmore\n```\n\n# C\nlast\n';
  assert.deepEqual(fragmentsOf(text).map((f) => [f.id, f.lines, f.heading_path, f.text]), [
    ['f1', [3, 4], ['A'], 'One.\nTwo.'],
    ['f2', [8, 9], ['A', 'B'], '- x\n- y'],
    ['f3', [11, 15], ['A', 'B'], '```\ncode\n\nmore\n```'],
    ['f4', [18, 18], ['C'], 'last'],
  ]);
});

test('source text: HTML through turndown without head, script or style; Markdown and text as UTF-8; other kinds refused', () => {
  const html = Buffer.from('<html><head><title>T</title><script>x()</script></head><body><h2>H</h2><p>a <strong>b</strong></p></body></html>');
  assert.deepEqual(sourceText('p.html', html), { kind: 'html', text: '## H\n\na **b**\n' });
  assert.deepEqual(sourceText('n.md', Buffer.from('\ufeff# x\r\n')), { kind: 'markdown', text: '# x\n' });
  assert.throws(() => sourceText('scan.pdf', Buffer.from('%PDF')), (e: any) => e.code === 'INVALID_INPUT');
  assert.throws(() => sourceText('bad.txt', Buffer.from([0xff, 0xfe, 0x00])), (e: any) => e.code === 'NOT_UTF8');
});
