import fs from 'node:fs';
import path from 'node:path';

/**
 * Every folder of the vault the stat walk would enter (absolute paths, the root
 * first): dot-folders skipped, symlinks not followed. A folder that cannot be
 * read is listed but not entered. The file watcher compares this with the
 * folders it watches, to know that no folder escaped its set-up.
 */
export function listVaultDirs(root: string): string[] {
  const out: string[] = [root];
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || !e.isDirectory()) continue;
      const abs = path.join(dir, e.name);
      out.push(abs);
      walk(abs);
    }
  };
  walk(root);
  return out;
}
