import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * One vault and one change-request list holding every action of the
 * change-request language (issue #21 §1), and what the vault holds once the
 * proposal is applied: the same list through every face (`--changes`, MCP, the
 * web API) must land the same files.
 */
export const EVERY_CHANGE_VAULT: Record<string, string> = {
  'Notes/A.md': '# A\n\nteh cat\n\n## Open\n\n- q1\n\n## Done\n\nold\n',
  'Notes/C.md': '# C\n\nalpha\n',
  'Notes/D.md': '# D\n',
  'Notes/E.md': '# E\n',
  'Notes/F.md': '# F\n\n## Plans\n\np\n',
  'Notes/Links.md': '# Links\n\n[[E]] and [[F#Plans]] and [[Projects/Old/x]]\n',
  'Projects/Old/x.md': '# x\n',
  'Projects/Old/y.md': '# y\n',
};

/** The file's sha256 as it is now ("none" once it is gone: the list can be rebuilt after each request applies). */
const sha = (root: string, p: string) => (fs.existsSync(path.join(root, p)) ? crypto.createHash('sha256').update(fs.readFileSync(path.join(root, p))).digest('hex') : 'none');

/** The list, against the vault as written in `root`. */
export function everyChange(root: string): Array<Record<string, unknown>> {
  const a = sha(root, 'Notes/A.md');
  return [
    { action: 'write', path: 'New.md', base: 'none', content: '# New\n' },
    { action: 'write', path: 'Notes/C.md', base: sha(root, 'Notes/C.md'), content: '# C\n\nbeta\n' },
    { action: 'delete', path: 'Notes/D.md', base: sha(root, 'Notes/D.md') },
    { action: 'move', path: 'Projects/Old/', base: 'none', to: 'Archive/Old/' },
    { action: 'rename', path: 'Notes/E.md', base: sha(root, 'Notes/E.md'), to: 'E2' },
    { action: 'replace', path: 'Notes/A.md', base: a, replace: 'teh', with: 'the' },
    { action: 'section', path: 'Notes/A.md', base: a, heading: 'A > Done', content: 'new\n' },
    { action: 'append', path: 'Notes/A.md', base: a, heading: 'Open', content: '- q2' },
    { action: 'append', path: 'Notes/A.md', base: a, content: 'end\n' },
    { action: 'rename_heading', path: 'Notes/F.md', base: sha(root, 'Notes/F.md'), heading: 'Plans', to: 'Goals' },
  ];
}

/** Every file the vault holds (dot-folders aside) once the list is applied. */
export const EVERY_CHANGE_APPLIED: Record<string, string> = {
  'New.md': '# New\n',
  'Notes/A.md': '# A\n\nthe cat\n\n## Open\n\n- q1\n- q2\n\n## Done\n\nnew\nend\n',
  'Notes/C.md': '# C\n\nbeta\n',
  'Notes/E2.md': '# E\n',
  'Notes/F.md': '# F\n\n## Goals\n\np\n',
  // the vault's link format is the shortest that resolves: the moved note is reached by its name
  'Notes/Links.md': '# Links\n\n[[E2]] and [[F#Goals]] and [[x]]\n',
  'Archive/Old/x.md': '# x\n',
  'Archive/Old/y.md': '# y\n',
};

/** The vault's files as {path: text}, dot-folders left out. */
export function vaultFiles(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else out[p] = fs.readFileSync(path.join(root, p), 'utf8');
    }
  };
  walk('');
  return out;
}
