import path from 'node:path';
import { VaultgateError } from '../errors.js';

/**
 * `vaultgate mcp --print-config CLIENT`: the JSON that registers this server
 * with an MCP client. Paths are absolute (node, the CLI, the vault): desktop
 * apps start servers without the shell's PATH, so `vaultgate` alone often is
 * not found. The environment variables that move vaultgate's folders are
 * carried over, so the server sees the same proposals and index as the shell.
 */

export const MCP_CLIENTS = ['claude-desktop', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** Where each client reads the snippet from. */
export const CLIENT_CONFIG_FILES: Record<McpClient, string> = {
  'claude-desktop': 'claude_desktop_config.json (Settings → Developer → Edit Config)',
  cursor: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
  vscode: '.vscode/mcp.json in a workspace (or "MCP: Open User Configuration")',
};

const CARRIED_ENV = ['VAULTGATE_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'VAULTGATE_AGENT'];

export function mcpClientConfig(
  client: string,
  opts: { vault: string; node: string; cli: string; env: Record<string, string | undefined>; allowApply?: boolean },
): { client: McpClient; file: string; config: Record<string, unknown> } {
  if (!(MCP_CLIENTS as readonly string[]).includes(client)) {
    throw new VaultgateError('USAGE', `unknown MCP client ${JSON.stringify(client)}`, { hint: `Use one of: ${MCP_CLIENTS.join(', ')}.`, details: { param: 'print_config' } });
  }
  const c = client as McpClient;
  const env: Record<string, string> = {};
  for (const name of CARRIED_ENV) {
    const v = opts.env[name];
    if (v) env[name] = name.startsWith('XDG_') || name === 'VAULTGATE_HOME' ? path.resolve(v) : v;
  }
  const server: Record<string, unknown> = {
    ...(c === 'vscode' ? { type: 'stdio' } : {}),
    command: opts.node,
    args: [opts.cli, 'mcp', '--vault', opts.vault, ...(opts.allowApply ? ['--allow-apply'] : [])],
    ...(Object.keys(env).length ? { env } : {}),
  };
  const config = c === 'vscode' ? { servers: { vaultgate: server } } : { mcpServers: { vaultgate: server } };
  return { client: c, file: CLIENT_CONFIG_FILES[c], config };
}
