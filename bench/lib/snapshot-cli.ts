import fs from 'node:fs';
import path from 'node:path';

/**
 * Run a private copy of dist/: other engineers rebuild dist/ (npm test does)
 * while a bench runs for minutes, and a schema change mid-run would turn a
 * "no-change refresh" into a full rebuild (a running daemon would also stop: its
 * build changed). package.json comes along for `"type": "module"`, node_modules
 * is linked so bare imports still resolve. Returns the copy's dist/cli/main.js.
 */
export function snapshotCli(repo: string, snap: string): string {
  if (!fs.existsSync(path.join(repo, 'dist/cli/main.js'))) return path.join(repo, 'dist/cli/main.js');
  fs.rmSync(snap, { recursive: true, force: true });
  fs.mkdirSync(snap, { recursive: true });
  fs.cpSync(path.join(repo, 'dist'), path.join(snap, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(repo, 'package.json'), path.join(snap, 'package.json'));
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(snap, 'node_modules'));
  return path.join(snap, 'dist/cli/main.js');
}
