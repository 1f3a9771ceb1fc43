// The in-process reference of the peer bench: one long-lived process with a
// watching VaultSession (what the MCP server and the daemon hold), timing each
// search from the operation table inside it (no process start, no socket).
// Plain .mjs against the compiled dist/, like stat-walk.mjs.
// Usage: node bench/lib/warm-search.mjs DIST VAULT REPS QUERY...  → JSON {query: [ms...]} on stdout.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, vault, repsText, ...queries] = process.argv.slice(2);
const { VaultSession } = await import(pathToFileURL(path.join(dist, 'session/index.js')).href);
const { findOperation, runOperation } = await import(pathToFileURL(path.join(dist, 'ops/index.js')).href);
const session = VaultSession.open({ vault, env: process.env, cwd: process.cwd(), freshness: 'watch' });
const ctx = { face: 'cli', env: process.env, cwd: process.cwd(), session: () => session, settle: () => session.settle(), readStdin: () => Buffer.alloc(0) };
const search = findOperation({ name: 'search' });
for (let i = 0; i < 600 && session.freshness()?.watcher?.state !== 'live'; i++) await new Promise((r) => setTimeout(r, 50));
// The first read once live is the watch's baseline walk; a second warms the statements.
for (let i = 0; i < 2; i++) await runOperation(search, { query: queries[0], limit: 10 }, 'api', ctx);
const out = {};
for (const q of queries) {
  out[q] = [];
  for (let i = 0; i < Number(repsText); i++) {
    const t = performance.now();
    await runOperation(search, { query: q, limit: 10 }, 'api', ctx);
    out[q].push(performance.now() - t);
  }
}
out.freshness = session.freshness();
await session.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
