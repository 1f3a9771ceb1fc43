// The journal's own rules (docs/policy.md, "The validator protocol"):
// - entries are Journal/YYYY-MM-DD.md and start with `# YYYY-MM-DD`, the same date;
// - an entry is never deleted or moved.

let input = '';
for await (const chunk of process.stdin) input += chunk;
const change = JSON.parse(input);

const messages = [];
const DAY = /^Journal\/(\d{4}-\d{2}-\d{2})\.md$/;
const bodyOf = (text) => text.replace(/^---\r?\n[\s\S]*?\r?\n---[ \t]*\r?\n/, '');

for (const file of change.files) {
  if (file.action === 'delete' || file.action === 'move') {
    messages.push(`${file.path}: journal entries are never deleted or moved`);
    continue;
  }
  const day = DAY.exec(file.path);
  if (!day) {
    messages.push(`${file.path}: a journal entry is named Journal/YYYY-MM-DD.md`);
    continue;
  }
  const first = bodyOf(file.new_text).split('\n').find((line) => line.trim() !== '');
  if (first?.trim() !== `# ${day[1]}`) messages.push(`${file.path}: the entry must start with "# ${day[1]}"`);
}

console.log(JSON.stringify({ ok: messages.length === 0, messages }));
