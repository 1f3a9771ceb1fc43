/** The vaultgate version every face reports (CLI `--version`, MCP server info, the generated skill). */
export const VERSION = '0.1.0';

/** Set by scripts/bundle.mjs (esbuild `define`): one id per build of the bundle. */
declare const __VAULTGATE_BUILD__: string | undefined;

/**
 * Which build of vaultgate this is: the daemon answers only clients of its own
 * build (another build may render a different answer). `source` when running
 * from the TypeScript sources or tsc's output (tests, the library).
 */
export const BUILD: string = typeof __VAULTGATE_BUILD__ === 'string' ? __VAULTGATE_BUILD__ : 'source';
