/**
 * ops: the operation table — every operation's name, input schema (as data,
 * see params.ts), core call, documented JSON output and text rendering. Every
 * face (CLI, MCP server, inboxes) registers from {@link OPERATIONS}, so the
 * faces cannot drift from each other.
 */
export { OPERATIONS, findOperation } from './table.js';
export { defineOperation, READ_ONLY, type Operation, type OpContext, type OpAnnotations, type OpOutput, type Progress } from './operation.js';
export { parseInput, inputZodShape, flagName, isRequired, type Param, type InputOf } from './params.js';
export { runOperation, errorReport, type ErrorReport, type OperationResult } from './run-operation.js';
export { outputZodSchema, type OutputFields, type OutputType } from './output.js';
