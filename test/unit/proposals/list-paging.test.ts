/**
 * Paging and filtering the proposal list and the audit log (what a face needs to
 * show a queue of thousands without loading it: the terminal inbox windows it).
 * `offset` pages through the same order `total` counts; `states` takes several
 * states (`--state open` = pending or blocked); `match` is a case-insensitive
 * substring of id, title, agent or a path, taken literally.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { findOperation, runOperation, type OpContext } from '../../../src/ops/index.js';
import { ProposalStore, type StoredChange } from '../../../src/proposals/index.js';
import { VaultSession } from '../../../src/session/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const write = (path: string, to: string | null = null): StoredChange =>
  to === null
    ? { path, action: 'write', to: null, base_sha256: null, old_text: null, new_text: `${path}\n`, new_sha256: sha(`${path}\n`) }
    : { path, action: 'move', to, base_sha256: sha('m\n'), old_text: 'm\n', new_text: null, new_sha256: sha('m\n') };

/** 30 proposals: p-1 … p-30, every third by `bob`, a few with telling titles and paths; p-5 and p-6 declined. */
function seeded(): { root: string; home: string } {
  const v = tempVault({}, { tmpfs: true });
  const store = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
  try {
    for (let i = 1; i <= 30; i++) {
      const title = i === 7 ? 'Über die Brote' : i === 8 ? '100% rye_bread' : `change ${i}`;
      const changes = i === 9 ? [write(`Notes/${i}.md`, 'Archive/Sourdough.md')] : [write(`Notes/${i}.md`)];
      store.insert({ title, summary: null, agent: i % 3 === 0 ? 'bob' : 'alice', session: null, scenario: null, allow_shrink: false, allow_relink: false, allow_broken_links: false, origin: 'propose', rollback_of: null, changes }, 'test');
    }
    for (const id of ['p-5', 'p-6']) assert.ok(store.transition(id, { from: ['pending'], to: 'declined', set: { declined_reason: 'no' } }));
  } finally {
    store.close();
  }
  return v;
}

function withStore<T>(v: { root: string; home: string }, body: (s: ProposalStore) => T): T {
  const store = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
  try {
    return body(store);
  } finally {
    store.close();
  }
}

const ids = (r: { proposals: Array<{ id: string }> }) => r.proposals.map((p) => p.id);

test('list: any offset and limit give exactly that slice of the whole list, newest first, and total counts every match', () => {
  const v = seeded();
  withStore(v, (store) => {
    const all = ids(store.list({ limit: 1000 }));
    assert.equal(all.length, 30);
    assert.equal(all[0], 'p-30');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 35 }), fc.integer({ min: 1, max: 12 }), fc.constantFrom(undefined, 'bob', 'alice'), (offset, limit, agent) => {
        const filter = { limit, offset, ...(agent ? { agent } : {}) };
        const whole = ids(store.list({ limit: 1000, ...(agent ? { agent } : {}) }));
        const page = store.list(filter);
        assert.deepEqual(ids(page), whole.slice(offset, offset + limit));
        assert.equal(page.total, whole.length);
      }),
      { numRuns: 60 },
    );
  });
});

test('list: several states at once; an empty list of states is every state', () => {
  const v = seeded();
  withStore(v, (store) => {
    assert.deepEqual(ids(store.list({ limit: 100, states: ['declined'] })), ['p-6', 'p-5']);
    assert.equal(store.list({ limit: 100, states: ['pending', 'blocked'] }).total, 28);
    assert.equal(store.list({ limit: 100, states: ['pending', 'declined'] }).total, 30);
    assert.equal(store.list({ limit: 100, states: [] }).total, 30);
  });
});

test('list: match is a case-insensitive substring of id, title, agent or a path (source or destination), with % and _ taken literally', () => {
  const v = seeded();
  withStore(v, (store) => {
    const m = (match: string) => ids(store.list({ limit: 100, match }));
    assert.deepEqual(m('üBER'), ['p-7'], 'Unicode case fold, not ASCII only');
    assert.deepEqual(m('sourdough'), ['p-9'], 'a move destination');
    assert.deepEqual(m('notes/12.md'), ['p-12'], 'a source path');
    assert.deepEqual(m('100%'), ['p-8']);
    assert.deepEqual(m('e_b'), ['p-8'], '_ is not a wildcard');
    assert.deepEqual(m('%'), ['p-8'], '% is not a wildcard');
    assert.equal(m('BOB').length, 10, 'the agent');
    assert.deepEqual(m('p-30'), ['p-30']);
    assert.deepEqual(m('no such thing'), []);
    const page = store.list({ limit: 2, offset: 1, match: 'change 1', states: ['pending'] });
    assert.equal(page.total, 11, 'change 1, change 10 … change 19');
    assert.deepEqual(ids(page), ['p-18', 'p-17']);
  });
});

test('log: offset pages through the audit log newest first', () => {
  const v = seeded();
  withStore(v, (store) => {
    const all = store.log({ limit: 1000 });
    assert.equal(all.total, 30, 'one proposed event each (the declines were set without events)');
    const seqs = all.events.map((e) => e.seq);
    assert.deepEqual(
      store.log({ limit: 5, offset: 10 }).events.map((e) => e.seq),
      seqs.slice(10, 15),
    );
    assert.deepEqual(store.log({ limit: 5, offset: 1000 }).events, []);
  });
});

test('proposals operation: --state open lists pending and blocked; --offset and --match reach the core; log --offset too', async () => {
  const v = seeded();
  const env = { VAULTGATE_HOME: v.home };
  let session: VaultSession | undefined;
  const ctx: OpContext = {
    face: 'cli',
    env,
    cwd: '/',
    readStdin: () => {
      throw new Error('no stdin');
    },
    session: () => (session ??= VaultSession.open({ vault: v.root, env, cwd: '/' })),
  };
  try {
    const list = findOperation({ name: 'proposals' })!;
    const open = (await runOperation(list, { state: 'open', limit: '3', offset: '2' }, 'cli', ctx)).output as any;
    assert.equal(open.total, 28);
    assert.deepEqual(ids(open), ['p-28', 'p-27', 'p-26']);
    const matched = (await runOperation(list, { match: 'brote' }, 'api', ctx)).output as any;
    assert.deepEqual(ids(matched), ['p-7']);
    await assert.rejects(runOperation(list, { offset: -1 }, 'api', ctx), /offset/);
    const log = (await runOperation(findOperation({ name: 'log' })!, { limit: 2, offset: 1 }, 'api', ctx)).output as any;
    assert.equal(log.events.length, 2);
    assert.equal(log.events[0].proposal, 'p-29');
  } finally {
    session?.close();
  }
});
