// The floor for a fresh-index read: start Node, walk the vault and stat every
// note (what any search that promises a fresh index must at least do). Plain
// .mjs on purpose: loading tsx would add ~100 ms and flatter every ratio.
// Usage: node bench/lib/stat-walk.mjs VAULT   → prints the number of notes.
import fs from 'node:fs';
import path from 'node:path';

let count = 0;
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.isFile() && e.name.endsWith('.md')) {
      fs.statSync(p);
      count++;
    }
  }
};
walk(process.argv[2]);
process.stdout.write(`${count}\n`);
