/**
 * skill: the text agents get and where it goes. docs/agents.md (shipped in the
 * package) is the one source; {@link renderSkill} makes SKILL.md from it;
 * {@link installSkill} writes it once under the data root and links it into
 * Claude Code's, Codex's and pi's skills folders; {@link uninstallSkill}
 * removes exactly what was installed. `--guard` adds Claude Code deny rules
 * ({@link addDenyRules}) and prints the Codex and OS-level recipes.
 */
export { PACKAGE_ROOT, agentsDocPath, readAgentsDoc, docSection, withoutTitle } from './agents-doc.js';
export { renderSkill, SKILL_NAME, SKILL_DESCRIPTION } from './render-skill.js';
export { installSkill, uninstallSkill, skillLayout, RUNTIMES, SKILLS_DIRS, CLAUDE_SETTINGS, type Runtime, type RuntimeReport, type GuardReport } from './install.js';
export { addDenyRules, removeDenyRules, CLAUDE_DENY_RULES, claudeDenyRules, codexRecipe, osRecipe } from './guard.js';
export { agentCommand, versionProblem, shimPath, shellWord, type AgentCommand } from './command.js';
