import { parseNote } from '../markdown/index.js';
import { fitsType, type PropertyRule, type ScenarioSpec } from './scenario-schema.js';

/**
 * A scenario's write rules applied to one note's new text: required properties
 * and per-property rules, read from the frontmatter as the project's Markdown
 * model parses it (YAML 1.2 core schema: dates stay strings).
 */

export interface PropertyProblem {
  /** `required`, `one_of`, `contains`, `type`, or `frontmatter` (the block itself is unusable). */
  rule: string;
  /** The property, or null for the block as a whole. */
  key: string | null;
  message: string;
}

/** The new text's frontmatter, as the validator's input and the rules see it. */
export interface NoteFrontmatter {
  /** The parsed properties (null when there is no block, or it does not parse). */
  data: unknown;
  /** The YAML error (`line:column message`), or null. */
  error: string | null;
}

export function noteFrontmatter(text: string): NoteFrontmatter | null {
  const fm = parseNote(text).frontmatter;
  if (!fm) return null;
  return { data: fm.data, error: fm.error ? `${fm.error.line}:${fm.error.column} ${fm.error.message}` : null };
}

/** Absent, null, empty string and empty list all count as "no value". */
function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

function show(value: unknown): string {
  const s = JSON.stringify(value);
  return s === undefined ? String(value) : s.length > 80 ? s.slice(0, 77) + '...' : s;
}

function ruleProblems(key: string, value: unknown, rule: PropertyRule): PropertyProblem[] {
  const out: PropertyProblem[] = [];
  if (isEmpty(value)) {
    if (!rule.optional) out.push({ rule: 'required', key, message: `property ${JSON.stringify(key)} is missing (the scenario has a rule for it)` });
    return out;
  }
  if (rule.type && !fitsType(value, rule.type)) {
    out.push({ rule: 'type', key, message: `property ${JSON.stringify(key)} must be a ${rule.type}, not ${show(value)}` });
  }
  if (rule.one_of && !(!Array.isArray(value) && rule.one_of.some((v) => v === value))) {
    out.push({ rule: 'one_of', key, message: `property ${JSON.stringify(key)} must be one of ${rule.one_of.map(show).join(', ')}, not ${show(value)}` });
  }
  if (rule.contains) {
    const list: unknown[] = Array.isArray(value) ? value : [value];
    const missing = rule.contains.filter((want) => !list.some((v) => v === want));
    if (missing.length > 0) {
      out.push({ rule: 'contains', key, message: `property ${JSON.stringify(key)} must contain ${missing.map(show).join(', ')} (has ${show(value)})` });
    }
  }
  return out;
}

/** Every way a note's frontmatter breaks the scenario's write rules; empty when it follows them (or there are none). */
export function frontmatterProblems(fm: NoteFrontmatter | null, write: ScenarioSpec['write']): PropertyProblem[] {
  const rules = Object.entries(write.frontmatter);
  if (write.required_frontmatter.length === 0 && rules.length === 0) return [];
  if (fm?.error) return [{ rule: 'frontmatter', key: null, message: `the frontmatter does not parse (${fm.error}), so the scenario's property rules cannot be checked` }];
  const data = fm?.data ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return [{ rule: 'frontmatter', key: null, message: 'the frontmatter is not a map of properties' }];
  }
  const props = data as Record<string, unknown>;
  const get = (key: string) => (Object.hasOwn(props, key) ? props[key] : undefined);
  const out: PropertyProblem[] = [];
  for (const key of write.required_frontmatter) {
    if (isEmpty(get(key))) out.push({ rule: 'required', key, message: `required property ${JSON.stringify(key)} is missing or empty` });
  }
  for (const [key, rule] of rules) {
    // a missing required property is reported once, by required_frontmatter
    if (isEmpty(get(key)) && write.required_frontmatter.includes(key)) continue;
    out.push(...ruleProblems(key, get(key), rule));
  }
  return out;
}
