/** The vaultgate version every face reports (CLI `--version`, MCP server info, the generated skill). */
export const VERSION = '0.1.0';
