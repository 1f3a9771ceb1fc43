/**
 * The environment settings the proposal operations read (faces pass the
 * environment in `OpContext.env`; core modules never read `process.env`). The
 * engine's own (VAULTGATE_LOCK_TIMEOUT_MS) are read by txn/settings.ts.
 */
type Env = Record<string, string | undefined>;

/** VAULTGATE_AGENT: the agent's name, the default of `propose --agent`. */
export function agentName(env: Env): string | undefined {
  const v = env.VAULTGATE_AGENT?.trim();
  return v ? v : undefined;
}

/** Who acts, for the audit log: the agent's name (VAULTGATE_AGENT), else `operator`. */
export function actorOf(env: Env, agent?: string): string {
  return agent ?? agentName(env) ?? 'operator';
}
