import { VaultgateError } from '../errors.js';
import { loadYaml } from '../lazy-require.js';
import { compilePathGlob, sha256Hex } from '../vault/index.js';
import { loadScenario, type Scenario, type ScenarioRoots } from './load-scenario.js';
import { runScenarioValidator, scenarioRuleChecks } from './scenario-checks.js';
import type { PropertyRule } from './scenario-schema.js';
import type { ProposedFile, ReviewCheck } from './types.js';
import type { ValidatorLimits } from './run-validator.js';

/**
 * `scenario show` and `scenario check`: a scenario as the user wrote it, and a
 * dry run of its checks — the rules and the validator — on a sample change, so
 * a broken validate.mjs is found before the first real proposal meets it.
 */

/** A scenario as `scenario show` prints it (docs/json.md). */
export interface ScenarioSummary {
  name: string;
  version: number;
  description: string;
  source: Scenario['source'];
  dir: string;
  validator: string | null;
  areas: string[];
  context: Scenario['context'];
  write: Scenario['write'];
  instruction: string;
}

export function summarizeScenario(s: Scenario): ScenarioSummary {
  return {
    name: s.name,
    version: s.version,
    description: s.description,
    source: s.source,
    dir: s.dir,
    validator: s.validator,
    areas: s.areas,
    context: s.context,
    write: { required_frontmatter: s.write.required_frontmatter, frontmatter: { ...s.write.frontmatter } },
    instruction: s.instruction,
  };
}

/** A vault path inside the first area glob: `Books/**` → `Books/Example.md`, `Journal/*.md` → `Journal/Example.md`. */
export function samplePath(scenario: Scenario): string {
  const glob = compilePathGlob(scenario.areas[0]!, `scenario ${scenario.name}: areas[0]`, 'SCENARIO_INVALID');
  const segs = glob.glob.split('/').filter((s, i, all) => s !== '**' || i === all.length - 1);
  const concrete = segs.map((s) => (s === '**' ? 'Example' : s.replace(/\*/g, 'Example').replace(/\?/g, 'x')));
  const plain = concrete.join('/');
  const withMd = plain.toLowerCase().endsWith('.md') ? plain : `${plain}.md`;
  return glob.test(withMd) ? withMd : plain;
}

function sampleValue(rule: PropertyRule | undefined): unknown {
  if (rule?.one_of) return rule.one_of[0];
  if (rule?.contains) return [...rule.contains];
  switch (rule?.type) {
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'list':
      return ['example'];
    case 'date':
      return '2026-01-01';
    default:
      return 'example';
  }
}

/** A new note that follows the scenario's property rules, as far as rules can say. */
export function sampleText(scenario: Scenario): string {
  const props: Record<string, unknown> = {};
  const keys = [...scenario.write.required_frontmatter, ...Object.keys(scenario.write.frontmatter)];
  for (const key of keys) {
    if (!Object.hasOwn(props, key)) Object.defineProperty(props, key, { value: sampleValue(scenario.write.frontmatter[key]), enumerable: true, writable: true, configurable: true });
  }
  const front = keys.length > 0 ? `---\n${loadYaml().stringify(props)}---\n` : '';
  return `${front}# Example\n\nA sample note written by \`vaultgate scenario check\`.\n`;
}

export interface ScenarioCheckReport {
  scenario: ScenarioSummary;
  sample: { path: string; action: 'write'; text: string };
  /** The `scenario` checks on the sample. */
  checks: ReviewCheck[];
  /** What the validator answered on the sample (null: the scenario has none). */
  validator: { outcome: string; ok: boolean; messages: string[]; sandboxed: boolean } | null;
}

/**
 * Load a scenario strictly (SCENARIO_INVALID / SCENARIO_NOT_FOUND as any use
 * would), then run its rules and its validator on a sample change: `sample`
 * when given (a note path and text), else a made-up note in its first area.
 * A validator that does not answer in shape (crash, timeout, memory, garbage)
 * makes the scenario invalid; a validator that answers `ok: false` on the
 * sample is working, and its verdict is reported.
 */
export async function checkScenario(
  name: string,
  opts: ScenarioRoots & { sample?: { path?: string; text?: string }; validator?: ValidatorLimits },
): Promise<ScenarioCheckReport> {
  const scenario = loadScenario(name, opts);
  const path = opts.sample?.path ?? samplePath(scenario);
  const text = opts.sample?.text ?? sampleText(scenario);
  const file: ProposedFile = { path, action: 'write', old_text: null, new_text: text, old_sha256: null, new_sha256: sha256Hex(Buffer.from(text, 'utf8')) };
  const checks = scenarioRuleChecks(scenario, [file]);
  const v = await runScenarioValidator(scenario, [file], { proposal: { title: 'vaultgate scenario check' }, ...(opts.validator ? { validator: opts.validator } : {}) });
  if (v && v.result.outcome !== 'answered') {
    throw new VaultgateError('SCENARIO_INVALID', `${scenario.validator}: ${v.result.problem}`, {
      details: { file: scenario.validator, outcome: v.result.outcome },
      hint: 'A validator reads the change as JSON on stdin and prints {"ok": true|false, "messages": [...]} on stdout, then exits 0 (docs/policy.md).',
    });
  }
  return {
    scenario: summarizeScenario(scenario),
    sample: { path, action: 'write', text },
    checks,
    validator: v ? { outcome: v.result.outcome, ok: v.result.ok, messages: v.result.messages, sandboxed: v.result.sandboxed } : null,
  };
}
