/**
 * The environment settings operations read, in one place (faces pass the
 * environment in `OpContext.env`; core modules never read `process.env`).
 */
type Env = Record<string, string | undefined>;

/** VAULTGATE_LOCK_TIMEOUT_MS: how long a writer waits for the vault lock (tests set 0). */
export function lockTimeout(env: Env): { lockTimeoutMs?: number } {
  const v = env.VAULTGATE_LOCK_TIMEOUT_MS;
  return v && /^\d+$/.test(v) ? { lockTimeoutMs: Number(v) } : {};
}

/** VAULTGATE_AGENT: the agent's name, the default of `propose --agent`. */
export function agentName(env: Env): string | undefined {
  const v = env.VAULTGATE_AGENT?.trim();
  return v ? v : undefined;
}

/** Who acts, for the audit log: the agent's name (VAULTGATE_AGENT), else `operator`. */
export function actorOf(env: Env, agent?: string): string {
  return agent ?? agentName(env) ?? 'operator';
}
