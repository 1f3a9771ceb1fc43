// The rules of the books scenario that its scenario.yaml cannot say (docs/policy.md,
// "The validator protocol"): reads the proposed change as JSON on stdin, prints
// {"ok": boolean, "messages": [...]} on stdout.
//
// - A note in Books/ starts (after its frontmatter) with `# <file name>`.
// - A note in Quotes/ has `source: "[[Book]]"` (a wikilink), is tagged `quote`,
//   and holds the quote itself as a `> ` block.

let input = '';
for await (const chunk of process.stdin) input += chunk;
const change = JSON.parse(input);

const messages = [];
const bodyOf = (text) => text.replace(/^---\r?\n[\s\S]*?\r?\n---[ \t]*\r?\n/, '');
const nameOf = (path) => path.split('/').pop().replace(/\.md$/i, '');

for (const file of change.files) {
  if (file.new_text === null) continue;
  const path = file.to ?? file.path;
  if (!path.toLowerCase().endsWith('.md')) continue;
  const body = bodyOf(file.new_text);
  const props = file.frontmatter?.data ?? {};
  if (path.startsWith('Books/')) {
    const h1 = /^# (.+)$/m.exec(body);
    if (!h1 || h1[1].trim() !== nameOf(path)) messages.push(`${path}: the first heading must be "# ${nameOf(path)}" (the file name)`);
  }
  if (path.startsWith('Quotes/')) {
    const source = props.source;
    if (typeof source !== 'string' || !/^\[\[[^\]]+\]\]$/.test(source.trim())) {
      messages.push(`${path}: "source" must name the book note as a wikilink, e.g. source: "[[Thinking in Systems]]"`);
    }
    const tags = Array.isArray(props.tags) ? props.tags : [props.tags];
    if (!tags.includes('quote')) messages.push(`${path}: a quote is tagged "quote" as well as "books"`);
    if (!/^> \S/m.test(body)) messages.push(`${path}: the quote itself goes in a "> " block`);
  }
}

console.log(JSON.stringify({ ok: messages.length === 0, messages }));
