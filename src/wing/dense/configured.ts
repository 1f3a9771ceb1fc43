import fs from 'node:fs';
import { machineConfigPath } from '../../vault/select-vault.js';

type Env = Record<string, string | undefined>;

/**
 * Whether the machine config may hold `search.embeddings`, decided on its text
 * alone: a `search` and an `embeddings` word in it. Every `search` asks, so
 * this must cost no more than one small file read — parsing the config loads
 * yaml and zod (~90 ms), and a search given `--vault` never parsed it before.
 * A false positive only costs that parse (readDenseSetting then says "off").
 */
export function denseMaybeConfigured(env: Env): boolean {
  let text: string;
  try {
    text = fs.readFileSync(machineConfigPath(env), 'utf8');
  } catch {
    // No config (or an unreadable one, which the parse would report elsewhere): nothing configured.
    return false;
  }
  return text.includes('search') && text.includes('embeddings');
}
