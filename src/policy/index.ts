/**
 * policy: what may be written, and how (DESIGN §5.2). This module says whether
 * a proposed change follows the rules; review (src/proposals) asks it and
 * reports the answers as named checks.
 *
 * - {@link areaOf} / {@link checkOwners}: area owners from the vault config
 *   (first matching glob wins; only `human` areas are writable).
 * - {@link findManagedBlocks} / {@link checkManagedBlocks}: `%%NAME-managed%%`
 *   blocks (and configured markers) that belong to a plugin or importer.
 * - {@link loadScenario}`(name, {root, env}) → Scenario`: a scenario folder
 *   (`<vault>/.vaultgate/scenarios/<name>/`, else `$XDG_CONFIG_HOME/vaultgate/scenarios/<name>/`):
 *   `scenario.yaml` (strict: SCENARIO_INVALID names the file and key), `AGENT.md`,
 *   optional `validate.mjs`. Unknown name → SCENARIO_NOT_FOUND; a bad name → INVALID_INPUT.
 * - {@link scenarioReviewChecks}`(scenario, files: ProposedFile[], opts?) → Promise<ReviewCheck[]>`:
 *   the checks a scenario adds to a review — `scenario` (writes outside its
 *   areas; new frontmatter against `write.required_frontmatter` and
 *   `write.frontmatter` rules; one passing check when all is well) and, when the
 *   scenario has a validator, one `validator` check. Every failing check is
 *   `severity: 'block'`. `opts.proposal` ({id, title, summary, agent, session},
 *   all optional) is handed to the validator; `opts.validator` ({timeoutMs,
 *   memoryMb}) overrides the limits. Never throws for what the validator does.
 * - {@link scenarioRuleChecks}: the `scenario` checks alone, synchronous.
 * - {@link runValidator}: a validate.mjs in a child process (timeout, heap and
 *   RSS caps, bounded output, empty environment, read access to its own folder
 *   only where Node has the permission model).
 * - {@link listScenarios}, {@link checkScenario}, {@link summarizeScenario}: the
 *   `scenario list|check|show` operations.
 * - {@link ProposedFile}, {@link ReviewCheck}, {@link AreaOwner}: the contract with review.
 *
 * May import: errors, vault, markdown, context (its bounds), txn (strict JSON).
 */
export type { ProposedFile, ReviewCheck, AreaOwner } from './types.js';
export { areaOf, checkOwners, touchedPaths, type AreaOf } from './areas.js';
export { findManagedBlocks, checkManagedBlocks, type ManagedBlock } from './managed-blocks.js';
export {
  loadScenario,
  listScenarios,
  scenarioRoots,
  assertScenarioName,
  SCENARIO_NAME,
  SCENARIO_FILES,
  MAX_SCENARIO_FILE_BYTES,
  type Scenario,
  type ScenarioRoots,
  type ScenarioSource,
  type ScenarioListing,
} from './load-scenario.js';
export {
  parseScenarioYaml,
  fitsType,
  SCENARIO_FORMAT_VERSION,
  MAX_SCENARIO_LIST_ITEMS,
  PROPERTY_TYPES,
  type ScenarioSpec,
  type PropertyRule,
  type PropertyType,
  type Scalar,
} from './scenario-schema.js';
export { frontmatterProblems, noteFrontmatter, type PropertyProblem, type NoteFrontmatter } from './frontmatter-rules.js';
export {
  scenarioReviewChecks,
  scenarioRuleChecks,
  runScenarioValidator,
  validatorInput,
  validatorCheck,
  VALIDATOR_INPUT_SCHEMA,
  type ScenarioCheckOptions,
  type ProposalInfo,
  type ValidatorInput,
  type ValidatorFile,
} from './scenario-checks.js';
export {
  runValidator,
  VALIDATOR_TIMEOUT_MS,
  VALIDATOR_MEMORY_MB,
  VALIDATOR_RSS_MARGIN_MB,
  MAX_VALIDATOR_INPUT_BYTES,
  MAX_VALIDATOR_OUTPUT_BYTES,
  MAX_VALIDATOR_MESSAGES,
  MAX_VALIDATOR_MESSAGE_CHARS,
  type ValidatorResult,
  type ValidatorOutcome,
  type ValidatorLimits,
} from './run-validator.js';
export { checkScenario, summarizeScenario, samplePath, sampleText, type ScenarioSummary, type ScenarioCheckReport } from './check-scenario.js';
