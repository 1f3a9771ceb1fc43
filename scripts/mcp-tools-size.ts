/**
 * `node --import tsx scripts/mcp-tools-size.ts [--allow-apply]`: what `tools/list`
 * costs a model before its first call (issue 21 §2: ≤ 12,000 characters of
 * compact JSON for the default tool set). One row per tool: its whole entry,
 * its description and input schema (characters of compact JSON; tools carry no
 * output schema: results are their JSON as text).
 */
import { mcpTools, toolDefinition } from '../src/mcp/index.js';

const allowApply = process.argv.includes('--allow-apply');
const defs = mcpTools({ allowApply }).map(toolDefinition);
const size = (v: unknown) => (v === undefined ? 0 : JSON.stringify(v).length);
console.log('| tool | total | description | input |');
console.log('|---|---|---|---|');
for (const d of defs) console.log(`| ${d.name} | ${size(d)} | ${d.description.length} | ${size(d.inputSchema)} |`);
console.log(`| **tools/list** | ${size({ tools: defs })} | | |`);
