// A proposer process for the concurrency test: one process, many proposals, through
// the compiled library (the same core the CLI calls), so the test races real
// processes on the proposal store without paying a process start per proposal.
// Usage: node propose-worker.mjs VAULT AGENT COUNT   (VAULTGATE_HOME in the environment)
import { VaultSession } from '../../dist/session/index.js';
import { propose } from '../../dist/proposals/index.js';

const [vault, agent, count] = process.argv.slice(2);
const session = VaultSession.open({ vault, env: process.env, cwd: process.cwd() });
const ids = [];
try {
  for (let n = 0; n < Number(count); n++) {
    const r = await propose(
      session,
      { title: `a${agent} n${n}`, agent: `agent-${agent}`, changes: [{ action: 'write', path: `Agent${agent}/Note${n}.md`, content: `# Note ${n} by agent ${agent}\n`, base: null }] },
      `agent-${agent}`,
    );
    ids.push(r.proposal.id);
  }
} finally {
  session.close();
}
process.stdout.write(JSON.stringify(ids));
