import { VaultgateError } from '../errors.js';
import { parseStrictJson } from '../txn/index.js';

/**
 * `skill install --guard`: guardrails beyond instructions. A runtime follows
 * "never apply" only because the skill says so; where the runtime has its own
 * permission settings, the guard adds deny rules there.
 *
 * - Claude Code: deny rules in `~/.claude/settings.json` (`permissions.deny`),
 *   enforced by Claude Code itself before a command runs. They match command
 *   prefixes, so they stop `vaultgate apply …` as typed, not a determined
 *   agent that runs `node …/main.js apply`: a tripwire against mistakes, not a
 *   sandbox.
 * - Codex: no per-command rules to add; its sandbox is the enforcement, so the
 *   guard prints the configuration that makes the vault read-only to it.
 * - pi: no permission system; the guard prints an OS-level recipe.
 *
 * The user's settings file is merged, never replaced: strict JSON (a file this
 * parser refuses is left untouched), every other key and its order kept, the
 * indentation kept, a backup beside it, and only the rules vaultgate added are
 * removed again by `skill uninstall`.
 */

/**
 * The commands that write the vault without a person's review in the inbox,
 * and those that give the person's consent to send note text off this machine
 * (issue 20.1): `--consent` anywhere on a vaultgate command line (it asks on a
 * terminal, which an agent can fake), every `consent` verb, and `serve` — the
 * web inbox prints its token to whoever starts it, and with the token a script
 * approves consents (and applies proposals). Asking without `--consent` stays
 * allowed: it is refused with a pending request for the person.
 */
export const CLAUDE_DENY_RULES = [
  'Bash(vaultgate apply *)',
  'Bash(vaultgate tx apply *)',
  'Bash(vaultgate undo *)',
  'mcp__vaultgate__apply',
  'Bash(vaultgate * --consent)',
  'Bash(vaultgate * --consent *)',
  'Bash(vaultgate consent *)',
  'Bash(vaultgate * consent approve *)',
  'Bash(vaultgate serve)',
  'Bash(vaultgate serve *)',
] as const;

/**
 * The deny rules for the command the skill tells agents to run: the rules for
 * `vaultgate` always (it may be on PATH later), and the same rules for the
 * shim's path when the skill runs a shim (command.ts), so the tripwire
 * matches what the agent actually types.
 */
export function claudeDenyRules(command: string): string[] {
  const rules: string[] = [...CLAUDE_DENY_RULES];
  if (command !== 'vaultgate') for (const r of CLAUDE_DENY_RULES) if (r.startsWith('Bash(vaultgate ')) rules.push(`Bash(${command} ${r.slice('Bash(vaultgate '.length)}`);
  return rules;
}

function refuse(file: string, why: string, rules: readonly string[]): never {
  throw new VaultgateError('CONFIG_INVALID', `${file}: ${why}; vaultgate leaves it untouched`, {
    path: file,
    hint: `Fix the file, or add these to "permissions": {"deny": [...]} by hand: ${rules.map((r) => JSON.stringify(r)).join(', ')}.`,
  });
}

/**
 * A value JSON.parse + JSON.stringify would not give back exactly: a number
 * with more digits than a double keeps, or an integer-like key (JavaScript
 * moves those to the front of an object). Such a file is refused, not rewritten.
 */
function unsafeToRewrite(text: string, value: unknown): string | null {
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g)) {
    const num = m[1];
    if (num === undefined) continue;
    if (num.replace(/^-|[eE].*$/g, '').replace('.', '').replace(/^0+/, '').length > 15) return `the number ${num} would lose digits when rewritten`;
  }
  const visit = (v: unknown): string | null => {
    if (Array.isArray(v)) {
      for (const x of v) {
        const r = visit(x);
        if (r) return r;
      }
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (/^(0|[1-9]\d*)$/.test(k)) return `the key ${JSON.stringify(k)} would move when rewritten`;
        const r = visit(x);
        if (r) return r;
      }
    }
    return null;
  };
  return visit(value);
}

/** The indentation the file uses (first indented line), so a rewrite looks like the original. */
function detectIndent(text: string): string | number {
  const m = /\n([ \t]+)["}\]]/.exec(text);
  if (!m) return 2;
  return m[1]!.startsWith('\t') ? '\t' : m[1]!.length;
}

interface Settings {
  doc: Record<string, unknown>;
  deny: string[];
  /** Keys the merge had to create (`permissions`, `permissions.deny`): removed again when left empty. */
  created: string[];
}

function parseSettings(file: string, text: string, rules: readonly string[]): Settings {
  let doc: unknown;
  try {
    doc = parseStrictJson(text.replace(/^\ufeff/, ''));
  } catch (e) {
    refuse(file, `not strict JSON (${(e as Error).message.replace(/^bundle is not strict JSON: /, '')})`, rules);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) refuse(file, 'the top level is not an object', rules);
  const unsafe = unsafeToRewrite(text, doc);
  if (unsafe) refuse(file, unsafe, rules);
  const root = doc as Record<string, unknown>;
  const created: string[] = [];
  if (root.permissions === undefined) {
    root.permissions = {};
    created.push('permissions');
  }
  const permissions = root.permissions;
  if (!permissions || typeof permissions !== 'object' || Array.isArray(permissions)) refuse(file, '"permissions" is not an object', rules);
  const perms = permissions as Record<string, unknown>;
  if (perms.deny === undefined) {
    perms.deny = [];
    created.push('permissions.deny');
  }
  if (!Array.isArray(perms.deny) || !perms.deny.every((r) => typeof r === 'string')) refuse(file, '"permissions.deny" is not a list of strings', rules);
  return { doc: root, deny: perms.deny as string[], created };
}

function serialize(original: string | null, doc: unknown): string {
  const indent = original === null ? 2 : detectIndent(original);
  const bom = original?.startsWith('\ufeff') ? '\ufeff' : '';
  const newline = original === null || original.endsWith('\n') ? '\n' : '';
  return bom + JSON.stringify(doc, null, indent) + newline;
}

/**
 * Claude Code's settings with `rules` added to `permissions.deny` (those
 * already there are not repeated); `created` names the keys the merge added.
 */
export function addDenyRules(file: string, original: string | null, rules: readonly string[]): { text: string; added: string[]; created: string[] } {
  let settings: Settings;
  if (original === null) {
    const deny: string[] = [];
    settings = { doc: { permissions: { deny } }, deny, created: ['permissions', 'permissions.deny'] };
  } else settings = parseSettings(file, original, rules);
  const added = rules.filter((r) => !settings.deny.includes(r));
  settings.deny.push(...added);
  return { text: added.length || original === null ? serialize(original, settings.doc) : original, added, created: added.length ? settings.created : [] };
}

/**
 * Claude Code's settings without `rules` (only those vaultgate added), and
 * without the keys it created (`created`) when they are left empty; `empty`
 * when the file holds nothing at all any more.
 */
export function removeDenyRules(file: string, original: string, rules: readonly string[], created: readonly string[] = []): { text: string; removed: string[]; empty: boolean } {
  const settings = parseSettings(file, original, rules);
  const removed = rules.filter((r) => settings.deny.includes(r));
  const kept = settings.deny.filter((r) => !removed.includes(r));
  settings.deny.splice(0, settings.deny.length, ...kept);
  const perms = settings.doc.permissions as Record<string, unknown>;
  const madeByUs = new Set([...created, ...settings.created]);
  if (kept.length === 0 && madeByUs.has('permissions.deny')) delete perms.deny;
  if (Object.keys(perms).length === 0 && madeByUs.has('permissions')) delete settings.doc.permissions;
  const empty = Object.keys(settings.doc).length === 0;
  return { text: removed.length ? serialize(original, settings.doc) : original, removed, empty };
}

/** Codex: its sandbox enforces; this is the configuration that makes the vault read-only to it. */
export function codexRecipe(roots: { data: string; cache: string }, vault: string | null): string {
  const v = vault ?? '/path/to/vault';
  return [
    '# Codex enforces this itself (its sandbox: Landlock on Linux, Seatbelt on macOS).',
    '# ~/.codex/config.toml: commands may write only the workspace and these folders;',
    "# the vault stays readable but not writable, so `vaultgate apply` fails there while",
    '# search, context, note and propose work (they write only the data and cache folders).',
    'sandbox_mode = "workspace-write"',
    '',
    '[sandbox_workspace_write]',
    `writable_roots = [${JSON.stringify(roots.data)}, ${JSON.stringify(roots.cache)}]`,
    '',
    `# Start Codex in a working folder that is not the vault (the workspace is writable): codex -C ~/work`,
    `# One-off, without editing config.toml:`,
    `#   codex --sandbox workspace-write -c 'sandbox_workspace_write.writable_roots=[${JSON.stringify(roots.data)},${JSON.stringify(roots.cache)}]'`,
    `# The vault: ${v}`,
  ].join('\n');
}

/** pi (and any runtime): an OS-level recipe, since pi has no permission settings of its own. */
export function osRecipe(vault: string | null): string {
  const v = vault ?? '/path/to/vault';
  return [
    '# pi has no permission settings: it follows "never apply" only because the skill says so.',
    '# To enforce it, run the agent with the vault mounted read-only (Linux, bubblewrap):',
    `bwrap --dev-bind / / --ro-bind ${JSON.stringify(v)} ${JSON.stringify(v)} pi`,
    '# (or a container with the vault as a read-only volume). The person applies from',
    '# `vaultgate serve` (or `vaultgate apply` in their own shell), outside that sandbox.',
  ].join('\n');
}
