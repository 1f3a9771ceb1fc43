/**
 * mcp: the MCP stdio server (`vaultgate mcp`), a thin face over the operation
 * table. {@link runMcpServer} serves one vault on stdin/stdout; {@link McpFace}
 * is everything it answers, without the SDK; {@link mcpTools} and
 * {@link toolDefinition} derive the tools from the table; {@link fitOutput}
 * keeps results under the output limit; {@link mcpClientConfig} is
 * `--print-config`. The SDK is imported only by {@link runMcpServer}.
 */
export { runMcpServer, McpFace, DEFAULT_MAX_OUTPUT_CHARS, noteUri, type McpServerOptions, type CallResult } from './server.js';
export { mcpTools, toolDefinition, lessHint, windowParams, forTool, hintForTool, APPLY_OPERATION, APPLY_WARNING, type McpTool, type ToolDefinition } from './tools.js';
export { fitOutput, type OutputLimitNote } from './output-limit.js';
export { mcpClientConfig, MCP_CLIENTS, CLIENT_CONFIG_FILES, type McpClient } from './print-config.js';
export { serverInstructions, answerPromptText, ANSWER_PROMPT } from './agent-text.js';
