import { parseInput, type Param } from '../ops/index.js';

/**
 * A whole-number flag of a verb that is not an operation of the table (`mcp`,
 * `serve`, `daemon start|run`), read as every operation's flags are
 * (`parseInput`: the same USAGE message, bounds hint and `details.param`), so
 * there is one way to check a number on the command line.
 */
export function intFlag(p: Param & { type: 'int' }, value: string): number {
  return parseInput([p], { [p.name]: value }, 'cli')[p.name] as number;
}
