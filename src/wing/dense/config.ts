import fs from 'node:fs';
import { isVaultgateError } from '../../errors.js';
import { loadZod, once } from '../../lazy-require.js';
import { machineConfigPath, readMachineConfig } from '../../vault/index.js';
import { embedConventions, isMultilingualModel, modelFor, resolveProvider, storedModelKey, type ProviderSpec } from '../providers/index.js';

type Env = Record<string, string | undefined>;

/**
 * Optional dense fusion for `search` and `context`, configured in the machine
 * config beside the providers `similar --provider` uses
 * (`$XDG_CONFIG_HOME/vaultgate/config.yaml`):
 *
 * ```yaml
 * search:
 *   embeddings:
 *     provider: ollama              # a name under `providers:` or the built-in ollama
 *     model: nomic-embed-text       # else the provider's embed_model
 *     scripts: [Latin]              # fuse only queries written in these scripts ("any": all);
 *                                   # default: any for a multilingual model, else [Latin]
 *     min_agreement: 0.1            # share of the dense top 10 notes the lexical ranking also found
 *     weight: 1                     # the dense ranking's weight in the fusion
 *     timeout_ms: 10000             # one attempt per query; a slow provider must not stall a search
 *     max_scan_notes: 200000        # the most stored notes scanned for dense-only matches
 * ```
 *
 * No `search.embeddings` (the default): nothing changes, not a byte of output.
 */
export interface DenseConfig {
  spec: ProviderSpec;
  model: string;
  /** The name the model's section vectors are stored under (its document convention included). */
  storedModel: string;
  /** Unicode script names (as `\p{Script=…}` spells them), or null for any. */
  scripts: string[] | null;
  minAgreement: number;
  weight: number;
  /** Above this many stored notes, no scan: only the lexical candidates get a dense score. */
  maxScanNotes: number;
}

/** What the config says: nothing configured, a usable config, or a config that cannot be used (a warning, never a failed search). */
export type DenseSetting = { kind: 'off' } | { kind: 'on'; config: DenseConfig } | { kind: 'invalid'; provider: string | null; message: string };

export const DENSE_DEFAULTS = { scripts: ['Latin'], minAgreement: 0.1, weight: 1, timeoutMs: 10_000, maxScanNotes: 200_000 } as const;

/** Script names a query can be checked against (`\p{Script=…}`); others are refused so a typo cannot silently turn fusion off. */
export const KNOWN_SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Arabic', 'Hebrew', 'Thai', 'Devanagari', 'Armenian', 'Georgian'] as const;

const embeddingsSchema = once(() => {
  const { z } = loadZod();
  return z.strictObject({
    provider: z.string().min(1),
    model: z.string().min(1).optional(),
    scripts: z.union([z.literal('any'), z.array(z.enum(KNOWN_SCRIPTS)).min(1)]).optional(),
    min_agreement: z.number().min(0).max(1).optional(),
    weight: z.number().min(0).max(10).optional(),
    timeout_ms: z.number().int().min(100).max(600_000).optional(),
    max_scan_notes: z.number().int().min(0).max(100_000_000).optional(),
  });
});

/**
 * The setting of the config text last parsed, per environment: a long-lived
 * face asks on every search, and parsing (yaml, zod, the provider) costs 1–5 ms
 * of a query's budget. A changed text is parsed again.
 */
const lastParsed = new WeakMap<Env, { text: string | null; setting: DenseSetting }>();

function configText(env: Env): string | null {
  try {
    return fs.readFileSync(machineConfigPath(env), 'utf8');
  } catch {
    return null;
  }
}

export function readDenseSetting(env: Env): DenseSetting {
  const text = configText(env);
  const last = lastParsed.get(env);
  if (last && last.text === text) return last.setting;
  const setting = parseDenseSetting(env);
  lastParsed.set(env, { text, setting });
  return setting;
}

function parseDenseSetting(env: Env): DenseSetting {
  const search = readMachineConfig(env).search;
  if (search === undefined || search.embeddings === undefined || search.embeddings === null) return { kind: 'off' };
  const file = machineConfigPath(env);
  const extra = Object.keys(search).filter((k) => k !== 'embeddings');
  if (extra.length > 0) return { kind: 'invalid', provider: null, message: `${file}: search.${extra[0]}: unknown key (known: embeddings)` };
  const parsed = embeddingsSchema().safeParse(search.embeddings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const known = issue.path[0] === 'scripts' ? ` (scripts: "any" or a list of ${KNOWN_SCRIPTS.join(', ')})` : '';
    return { kind: 'invalid', provider: null, message: `${file}: search.embeddings.${issue.path.join('.') || '(entry)'}: ${issue.message}${known}` };
  }
  const e = parsed.data;
  try {
    const base = resolveProvider(env, e.provider);
    // One attempt with a short timeout: a search waits for the query's vector, and the lexical answer is always there.
    const spec: ProviderSpec = { ...base, timeoutMs: e.timeout_ms ?? DENSE_DEFAULTS.timeoutMs, attempts: 1, backoffMs: 0 };
    const model = modelFor(spec, 'embed', e.model);
    // A model that reads many languages is asked in any script; an English-only one only for Latin queries.
    const scripts = e.scripts === 'any' ? null : (e.scripts ?? (isMultilingualModel(model) ? null : [...DENSE_DEFAULTS.scripts]));
    return {
      kind: 'on',
      config: {
        spec,
        model,
        storedModel: storedModelKey(model, embedConventions(spec, model)),
        scripts,
        minAgreement: e.min_agreement ?? DENSE_DEFAULTS.minAgreement,
        weight: e.weight ?? DENSE_DEFAULTS.weight,
        maxScanNotes: e.max_scan_notes ?? DENSE_DEFAULTS.maxScanNotes,
      },
    };
  } catch (err) {
    if (!isVaultgateError(err)) throw err;
    return { kind: 'invalid', provider: e.provider, message: `search.embeddings: ${err.message}` };
  }
}
