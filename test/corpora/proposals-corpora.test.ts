/**
 * The proposal loop on copies of the real vaults in ../shared/corpora (the
 * originals are never written): for a few notes with headings, propose an
 * append to a section, review, apply, roll back and apply the rollback; the
 * note ends byte-identical to the original. One note linked from others is
 * proposed for deletion: review lists the links it would break and blocks it
 * (link_stability, unless --allow-broken-links).
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-vault.js';
import { eachCorpus } from '../helpers/corpora.js';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const NOTES_PER_CORPUS = 2;

function markdownFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...markdownFiles(root, r));
    else if (e.isFile() && e.name.endsWith('.md')) out.push(r);
  }
  return out;
}

eachCorpus('proposals on a copy', (corpus) => {
  test(`proposals on a copy of ${corpus.name}: append to a section → review → apply → rollback → apply restores the bytes; deleting a linked note is blocked`, async (t) => {
    const base = tempDir();
    const vault = path.join(base, 'vault');
    fs.cpSync(corpus.vault, vault, { recursive: true, filter: (src) => !path.basename(src).startsWith('.') || src === corpus.vault });
    const home = path.join(base, 'home');
    const vg = (args: string[]) => runCli(args, { vault, home });
    let done = 0;
    for (const rel of markdownFiles(vault)) {
      if (done >= NOTES_PER_CORPUS) break;
      const original = fs.readFileSync(path.join(vault, rel));
      const note = await vg(['note', rel]);
      if (note.exitCode !== 0) continue; // not UTF-8, too large: not this test's business
      // a section named by a heading path that names it alone
      const paths = note.json.sections.filter((s: any) => s.heading_path.length > 0).map((s: any) => s.heading_path.join(' > '));
      const heading = paths.find((p: string) => paths.filter((q: string) => q === p).length === 1);
      if (!heading) continue;
      const p = await vg(['propose', rel, '--append-to-section', heading, '--content', '\nAdded by the corpus test.\n', '--base', note.json.sha256, '--agent', 'corpus-test']);
      if (p.exitCode !== 0 && ['EDIT_AMBIGUOUS', 'HEADING_NOT_FOUND'].includes(p.json?.error?.code)) continue; // headings only Obsidian-equal
      assert.equal(p.exitCode, 0, `${rel}: ${p.stdout}`);
      const blocking = p.json.review.checks.filter((c: any) => !c.ok && c.severity === 'block');
      assert.deepEqual(blocking, [], `${rel}: an append of plain text blocks`);
      const a = await vg(['apply', p.json.proposal.id, '--review-hash', p.json.review.review_hash]);
      assert.equal(a.exitCode, 0, `${rel}: ${a.stdout}`);
      assert.ok(fs.readFileSync(path.join(vault, rel), 'utf8').includes('Added by the corpus test.'));
      const rb = await vg(['rollback', p.json.proposal.id]);
      assert.equal(rb.json.proposal.state, 'pending', `${rel}: ${JSON.stringify(rb.json.review?.checks?.filter((c: any) => !c.ok))}`);
      assert.equal((await vg(['apply', rb.json.proposal.id, '--review-hash', rb.json.review.review_hash])).exitCode, 0);
      assert.deepEqual(fs.readFileSync(path.join(vault, rel)), original, `${rel}: rollback restores the exact bytes`);
      done++;
    }
    assert.ok(done > 0, 'found notes to edit');
    // a linked-to note cannot be deleted by accident
    let target: { rel: string; links: number } | null = null;
    for (const rel of markdownFiles(vault).slice(0, 40)) {
      const b = await vg(['backlinks', rel]);
      const n = (b.json?.backlinks ?? []).filter((x: any) => x.source !== rel).length;
      if (n > (target?.links ?? 0)) target = { rel, links: n };
    }
    if (target) {
      const bytes = fs.readFileSync(path.join(vault, target.rel));
      const d = await vg(['propose', '--delete', target.rel, '--base', sha(bytes)]);
      assert.equal(d.exitCode, 0, d.stdout);
      assert.equal(d.json.proposal.state, 'blocked');
      assert.ok(d.json.review.checks.some((c: any) => c.name === 'link_stability' && !c.ok && c.severity === 'block'));
      t.diagnostic(`${corpus.name}: ${done} notes edited and restored; deleting ${target.rel} (${target.links} backlinks) blocked, ${d.json.review.files[0].links_broken.length} links listed as broken`);
    }
  });
});
