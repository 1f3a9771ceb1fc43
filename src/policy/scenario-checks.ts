import { compilePathGlob, matchesAnyGlob } from '../vault/index.js';
import { frontmatterProblems, noteFrontmatter, type NoteFrontmatter } from './frontmatter-rules.js';
import type { Scenario } from './load-scenario.js';
import { runValidator, type ValidatorLimits, type ValidatorResult } from './run-validator.js';
import type { ProposedFile, ReviewCheck } from './types.js';

/**
 * A scenario's part of a review (DESIGN §5.2): the checks named `scenario`
 * (writes outside its areas, frontmatter against its write rules) and
 * `validator` (its validate.mjs, in a child process). Review calls
 * {@link scenarioReviewChecks} with the files of a proposal, each already an
 * exact full-text change.
 */

/** Schema tag of the document a validator reads on stdin. */
export const VALIDATOR_INPUT_SCHEMA = 'vaultgate.validator-input.v1';

/** What review knows about the proposal, passed on to the validator (all optional). */
export interface ProposalInfo {
  id?: string;
  title?: string;
  summary?: string;
  agent?: string;
  session?: string;
}

export interface ScenarioCheckOptions {
  /** Handed to the validator as `proposal`. */
  proposal?: ProposalInfo;
  /** Timeout and memory cap of the validator (defaults: VALIDATOR_TIMEOUT_MS, VALIDATOR_MEMORY_MB). */
  validator?: ValidatorLimits;
}

/** Notes are Markdown files: only they have frontmatter to check. */
function isNote(p: string): boolean {
  return p.toLowerCase().endsWith('.md');
}

/** The path a file's new text lands at: the destination of a move, else its own path. */
function landsAt(f: ProposedFile): string {
  return f.action === 'move' && f.to !== undefined ? f.to : f.path;
}

/**
 * The `scenario` checks, synchronous (no validator): one blocking check per path
 * outside the scenario's areas (a move counts its source and its destination:
 * both change the area), one blocking check per note whose new frontmatter
 * breaks the write rules (all its problems in `details.problems`), or a single
 * passing check when nothing is wrong.
 */
export function scenarioRuleChecks(scenario: Scenario, files: readonly ProposedFile[]): ReviewCheck[] {
  const globs = scenario.areas.map((g, i) => compilePathGlob(g, `scenario ${scenario.name}: areas[${i}]`, 'SCENARIO_INVALID'));
  const checks: ReviewCheck[] = [];
  const areaList = scenario.areas.join(', ');
  for (const f of files) {
    const touched = f.action === 'move' && f.to !== undefined ? [f.path, f.to] : [f.path];
    for (const p of touched) {
      if (matchesAnyGlob(globs, p)) continue;
      checks.push({
        name: 'scenario',
        ok: false,
        severity: 'block',
        path: p,
        message: `${p} is outside the areas of scenario ${scenario.name} (${areaList})`,
        details: { rule: 'areas', areas: scenario.areas },
      });
    }
    const dest = landsAt(f);
    if (f.new_text === null || !isNote(dest)) continue;
    const problems = frontmatterProblems(noteFrontmatter(f.new_text), scenario.write);
    if (problems.length === 0) continue;
    checks.push({
      name: 'scenario',
      ok: false,
      severity: 'block',
      path: dest,
      message: `${dest} breaks the write rules of scenario ${scenario.name}: ${problems.map((p) => p.message).join('; ')}`,
      details: { rule: 'frontmatter', problems },
    });
  }
  if (checks.length === 0) {
    const n = files.length;
    checks.push({ name: 'scenario', ok: true, severity: 'block', message: `${n} ${n === 1 ? 'file follows' : 'files follow'} scenario ${scenario.name} (areas ${areaList})` });
  }
  return checks;
}

/** A proposed file as the validator reads it: the change plus the new text's parsed frontmatter. */
export interface ValidatorFile extends ProposedFile {
  /** The new text's frontmatter (`{data, error}`), or null when it has none or the file is deleted or not a note. */
  frontmatter: NoteFrontmatter | null;
}

/** The document a validator gets on stdin (docs/policy.md, "The validator protocol"). */
export interface ValidatorInput {
  schema: typeof VALIDATOR_INPUT_SCHEMA;
  scenario: { name: string; version: number; areas: string[] };
  proposal: ProposalInfo | null;
  files: ValidatorFile[];
}

export function validatorInput(scenario: Scenario, files: readonly ProposedFile[], proposal?: ProposalInfo): ValidatorInput {
  return {
    schema: VALIDATOR_INPUT_SCHEMA,
    scenario: { name: scenario.name, version: scenario.version, areas: scenario.areas },
    proposal: proposal ?? null,
    files: files.map((f) => ({
      path: f.path,
      action: f.action,
      ...(f.to !== undefined ? { to: f.to } : {}),
      old_text: f.old_text,
      new_text: f.new_text,
      old_sha256: f.old_sha256,
      new_sha256: f.new_sha256,
      frontmatter: f.new_text !== null && isNote(landsAt(f)) ? noteFrontmatter(f.new_text) : null,
    })),
  };
}

/** A validator's result as a review check (blocking unless it answered `ok: true`). */
export function validatorCheck(scenario: Scenario, r: ValidatorResult): ReviewCheck {
  const details = { outcome: r.outcome, messages: r.messages, sandboxed: r.sandboxed };
  if (r.outcome !== 'answered') {
    return { name: 'validator', ok: false, severity: 'block', message: `the validator of scenario ${scenario.name} failed: ${r.problem}`, details };
  }
  const said = r.messages.length > 0 ? `: ${r.messages.join('; ')}` : '';
  return r.ok
    ? { name: 'validator', ok: true, severity: 'block', message: `the validator of scenario ${scenario.name} accepted the change${said}`, details }
    : { name: 'validator', ok: false, severity: 'block', message: `the validator of scenario ${scenario.name} refused the change${said || ' (no reason given)'}`, details };
}

/** Run the scenario's validator on the files (null when the scenario has none). */
export async function runScenarioValidator(scenario: Scenario, files: readonly ProposedFile[], opts: ScenarioCheckOptions = {}): Promise<{ check: ReviewCheck; result: ValidatorResult } | null> {
  if (!scenario.validator) return null;
  const result = await runValidator(scenario.validator, validatorInput(scenario, files, opts.proposal), opts.validator);
  return { check: validatorCheck(scenario, result), result };
}

/**
 * Every check a scenario adds to a review: {@link scenarioRuleChecks}, then one
 * `validator` check when the scenario has a validate.mjs (it runs even when a
 * rule already failed, so the agent learns everything at once).
 *
 * @example
 *   const scenario = loadScenario('books', { root, env });
 *   const checks = await scenarioReviewChecks(scenario, files, { proposal: { id: 'p-7', title, agent } });
 *   const blocked = checks.some((c) => !c.ok && c.severity === 'block');
 */
export async function scenarioReviewChecks(scenario: Scenario, files: readonly ProposedFile[], opts: ScenarioCheckOptions = {}): Promise<ReviewCheck[]> {
  const checks = scenarioRuleChecks(scenario, files);
  const v = await runScenarioValidator(scenario, files, opts);
  if (v) checks.push(v.check);
  return checks;
}
