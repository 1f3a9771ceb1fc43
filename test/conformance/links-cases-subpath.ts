/**
 * Conformance rows for subpaths: headings (with Obsidian's stripHeading, nested
 * `#A#B`) and blocks (`#^id`). obsidian-links.md "Subpaths". See links.test.ts.
 */
import type { Case } from './links.test.js';

const R = 'resolved' as const;
const H = 'heading' as const;
const B = 'block' as const;

const DOC = [
  '# Guide', //                               1
  '', //                                      2
  '## Intro', //                              3
  'Text.', //                                 4
  '## **Bold** and [[Other|x]]', //           5
  '## Heading Text', //                       6
  '## What? (draft)', //                      7
  '## Введение', //                           8
  '## C# basics', //                          9
  '## Title ##', //                           10
  'Setext Heading', //                        11
  '--------------', //                        12
  'A paragraph with an id. ^para-1', //       13
  '', //                                      14
  '> a quote', //                             15
  '', //                                      16
  '^quote-id', //                             17
  '', //                                      18
  '```', //                                   19
  '## Not a heading', //                      20
  '```', //                                   21
].join('\n');

const NESTED = [
  '# Top', //        1
  '## X', //         2
  '### B', //        3
  'x-b', //          4
  '## A', //         5
  '#### B', //       6
  'a-b', //          7
  '## C', //         8
  '### D', //        9
  '## Dup', //       10
  'first', //        11
  '## Dup', //       12
  'second', //       13
].join('\n');

const doc = { 'Doc.md': DOC };
const nested = { 'Nested.md': NESTED };

export const CASES_SUBPATH: Case[] = [
  { name: 'a heading link finds the heading', rule: 'subpaths, documented',
    files: doc, from: 'From.md', link: '[[Doc#Intro]]',
    expect: { status: R, target: 'Doc.md', subpath: { kind: H, value: 'Intro', exists: true, lines: [3, 4] } }, cli: true },
  { name: 'heading matching ignores case', rule: 'subpaths, reverse-engineered (stripHeading + lower case)',
    files: doc, from: 'From.md', link: '[[Doc#iNTRO]]', expect: { status: R, subpath: { kind: H, value: 'iNTRO', exists: true } } },
  { name: 'heading matching ignores Cyrillic case', rule: 'subpaths, reverse-engineered',
    files: doc, from: 'From.md', link: '[[Doc#ВВЕДЕНИЕ]]', expect: { status: R, subpath: { kind: H, value: 'ВВЕДЕНИЕ', exists: true } } },
  { name: 'formatting and links in a heading are stripped before comparing', rule: 'stripHeading, reverse-engineered',
    files: doc, from: 'From.md', link: '[[Doc#Bold and Other x]]', expect: { status: R, subpath: { kind: H, value: 'Bold and Other x', exists: true, lines: [5, 5] } }, cli: true },
  { name: 'a GitHub-style slug does not match a heading', rule: 'stripHeading keeps - and _, reverse-engineered',
    files: doc, from: 'From.md', link: '[[Doc#heading-text]]', expect: { status: R, subpath: { kind: H, value: 'heading-text', exists: false } }, cli: true },
  { name: 'the heading as written matches too', rule: 'stripHeading, reverse-engineered',
    files: doc, from: 'From.md', link: '[[Doc#Heading Text]]', expect: { status: R, subpath: { kind: H, value: 'Heading Text', exists: true } } },
  { name: 'punctuation in a heading becomes space', rule: 'stripHeading, reverse-engineered',
    files: doc, from: 'From.md', link: '[[Doc#What draft]]', expect: { status: R, subpath: { kind: H, value: 'What draft', exists: true } } },
  { name: 'punctuation in the link is stripped the same way', rule: 'stripHeading, reverse-engineered',
    files: doc, from: 'From.md', link: '[[Doc#What? (draft)]]', expect: { status: R, subpath: { kind: H, value: 'What? (draft)', exists: true } } },
  { name: 'a # inside a heading is matched by a space in the link', rule: 'stripHeading (# → space), reverse-engineered',
    files: doc, from: 'From.md', link: '[[Doc#C basics]]', expect: { status: R, subpath: { kind: H, value: 'C basics', exists: true } } },
  { name: 'closing #s of an ATX heading are not part of its text', rule: 'subpaths, documented (CommonMark)',
    files: doc, from: 'From.md', link: '[[Doc#Title]]', expect: { status: R, subpath: { kind: H, value: 'Title', exists: true } } },
  { name: 'a setext heading is a heading', rule: 'subpaths, documented (CommonMark)',
    files: doc, from: 'From.md', link: '[[Doc#Setext Heading]]', expect: { status: R, subpath: { kind: H, value: 'Setext Heading', exists: true } } },
  { name: 'a heading inside fenced code is not a heading', rule: 'what counts, documented',
    files: doc, from: 'From.md', link: '[[Doc#Not a heading]]', expect: { status: R, subpath: { kind: H, value: 'Not a heading', exists: false } } },
  { name: 'a missing heading in a resolved note is a broken anchor', rule: 'broken anchor, documented',
    files: doc, from: 'From.md', link: '[[Doc#Nowhere]]', expect: { status: R, target: 'Doc.md', subpath: { kind: H, value: 'Nowhere', exists: false } }, cli: true },
  { name: 'empty segments are dropped', rule: 'subpaths, documented',
    files: doc, from: 'From.md', link: '[[Doc##Intro]]', expect: { status: R, subpath: { kind: H, value: 'Intro', exists: true } } },
  { name: 'a lone # is no subpath', rule: 'subpaths, decided (nothing left after dropping empty segments)',
    files: doc, from: 'From.md', link: '[[Doc#]]', expect: { status: R, target: 'Doc.md', subpath: null } },
  { name: 'a nested heading path finds the child inside the parent section', rule: 'nested headings, documented',
    files: nested, from: 'From.md', link: '[[Nested#A#B]]',
    expect: { status: R, subpath: { kind: H, value: 'A#B', exists: true, lines: [6, 7] } }, cli: true },
  { name: 'a nested path may skip heading levels', rule: 'nested headings, reverse-engineered',
    files: nested, from: 'From.md', link: '[[Nested#Top#D]]', expect: { status: R, subpath: { kind: H, value: 'Top#D', exists: true, lines: [9, 9] } } },
  { name: 'a nested child outside the parent section is missing', rule: 'nested headings, reverse-engineered',
    files: nested, from: 'From.md', link: '[[Nested#A#D]]', expect: { status: R, subpath: { kind: H, value: 'A#D', exists: false } } },
  { name: 'a nested child before its parent is missing', rule: 'nested headings, reverse-engineered',
    files: nested, from: 'From.md', link: '[[Nested#C#B]]', expect: { status: R, subpath: { kind: H, value: 'C#B', exists: false } } },
  { name: 'a single segment finds the first heading of that text', rule: 'duplicate headings, documented',
    files: nested, from: 'From.md', link: '[[Nested#B]]', expect: { status: R, subpath: { kind: H, value: 'B', exists: true, lines: [3, 4] } } },
  { name: 'duplicate headings: the first in document order', rule: 'duplicate headings, observed',
    files: nested, from: 'From.md', link: '[[Nested#Dup]]', expect: { status: R, subpath: { kind: H, value: 'Dup', exists: true, lines: [10, 11] } } },
  { name: 'a section runs to the next heading of the same or a higher level', rule: 'sections, documented',
    files: nested, from: 'From.md', link: '[[Nested#X]]', expect: { status: R, subpath: { kind: H, value: 'X', exists: true, lines: [2, 4] } } },
  { name: 'a block id resolves', rule: 'block ids, documented',
    files: doc, from: 'From.md', link: '[[Doc#^para-1]]', expect: { status: R, subpath: { kind: B, value: 'para-1', exists: true } }, cli: true },
  { name: 'block ids match case-insensitively', rule: 'block ids, observed',
    files: doc, from: 'From.md', link: '[[Doc#^PARA-1]]', expect: { status: R, subpath: { kind: B, value: 'PARA-1', exists: true } } },
  { name: 'a block id on its own line after a quote names the quote', rule: 'block ids, documented',
    files: doc, from: 'From.md', link: '[[Doc#^quote-id]]', expect: { status: R, subpath: { kind: B, value: 'quote-id', exists: true } } },
  { name: 'a missing block id is a broken anchor', rule: 'broken anchor, documented',
    files: doc, from: 'From.md', link: '[[Doc#^nope]]', expect: { status: R, subpath: { kind: B, value: 'nope', exists: false } } },
  { name: 'a block link written with ## still names the block', rule: 'subpaths, decided; corpus vaultofknowledge [[Note##^id]]',
    files: doc, from: 'From.md', link: '[[Doc##^para-1]]', expect: { status: R, subpath: { kind: B, value: 'para-1', exists: true } } },
  { name: 'a block id at the end of a heading line names the heading', rule: 'block ids, decided; corpus vaultofknowledge',
    files: { 'R.md': 'Intro\n\n### The rules ^rule-id\nBody\n' }, from: 'From.md', link: '[[R#^rule-id]]',
    expect: { status: R, subpath: { kind: B, value: 'rule-id', exists: true, lines: [3, 3] } } },
  { name: 'a block id glued to the text without a space is no block id', rule: 'block ids, documented (the id follows a space); corpus vaultofknowledge',
    files: { 'R.md': 'See [source](https://x.org)^main-source\n' }, from: 'From.md', link: '[[R#^main-source]]',
    expect: { status: R, subpath: { kind: B, value: 'main-source', exists: false } } },
  { name: 'a block embed resolves like a block link', rule: 'embeds, documented',
    files: doc, from: 'From.md', link: '![[Doc#^para-1]]', expect: { status: R, subpath: { kind: B, value: 'para-1', exists: true } } },
  { name: 'a same-note block link resolves in the source note', rule: 'rule 2, documented',
    files: { 'From.md': 'Para ^here\n\n[[#^here]]\n' }, from: 'From.md', link: '[[#^here]]',
    expect: { status: R, target: 'From.md', subpath: { kind: B, value: 'here', exists: true } } },
  // Block ranges: a block link cites the whole element its id names, never just the `^id` line.
  { name: 'a block id names its whole paragraph', rule: 'block ids, documented (a block is a paragraph, quote or list item: help "Internal links")',
    files: { 'B.md': 'Intro\n\nFirst line of it,\nsecond line ^multi\n\nAfter\n' }, from: 'From.md', link: '[[B#^multi]]',
    expect: { status: R, subpath: { kind: B, value: 'multi', exists: true, lines: [3, 4] } }, cli: true },
  { name: 'a block id on a list item names the item with its sub-items', rule: 'block ids, documented (list item) and observed (a linked item embeds its sub-items)',
    files: { 'B.md': '- one ^li\n  - sub a\n  - sub b\n- two\n' }, from: 'From.md', link: '[[B#^li]]',
    expect: { status: R, subpath: { kind: B, value: 'li', exists: true, lines: [1, 3] } }, cli: true },
  { name: 'an id after a blank line names the whole quote before it', rule: 'block ids, documented (help: id on its own line after a quote)',
    files: { 'B.md': '> line one\n> line two\n\n^q\n' }, from: 'From.md', link: '[[B#^q]]',
    expect: { status: R, subpath: { kind: B, value: 'q', exists: true, lines: [1, 2] } } },
  { name: 'an id after a blank line names the whole callout before it', rule: 'block ids, documented (help: callouts)',
    files: { 'B.md': 'x\n\n> [!note] Title\n> body\n> more\n\n^c\n' }, from: 'From.md', link: '[[B#^c]]',
    expect: { status: R, subpath: { kind: B, value: 'c', exists: true, lines: [3, 5] } } },
  { name: 'an id after a blank line names the whole table before it', rule: 'block ids, documented (help: tables)',
    files: { 'B.md': '| a | b |\n|---|---|\n| 1 | 2 |\n\n^t\n' }, from: 'From.md', link: '[[B#^t]]',
    expect: { status: R, subpath: { kind: B, value: 't', exists: true, lines: [1, 3] } }, cli: true },
  { name: 'an id on its own line right after a paragraph names the paragraph', rule: 'block ids, observed (Obsidian help vault embeds such ids, issue 13; third-party block-id test note "this\\n^works")',
    files: { 'T.md': '# T\n\nPara text\n^para-id\n\nNext\n' }, from: 'From.md', link: '[[T#^para-id]]',
    expect: { status: R, subpath: { kind: B, value: 'para-id', exists: true, lines: [3, 4] } }, cli: true },
  { name: 'an id on its own line right after a quote names the quote', rule: 'block ids, observed (Obsidian help vault, issue 13)',
    files: { 'T.md': '> quoted\n> more\n^quote-id\n\nNext\n' }, from: 'From.md', link: '[[T#^quote-id]]',
    expect: { status: R, subpath: { kind: B, value: 'quote-id', exists: true, lines: [1, 3] } }, cli: true },
  { name: 'an id at column 0 right after a list names the whole list', rule: 'block ids, observed (third-party block-id test note: "^fulllist1" names the full list)',
    files: { 'T.md': '- a\n  - b\n- c\n^whole\n\nNext\n' }, from: 'From.md', link: '[[T#^whole]]',
    expect: { status: R, subpath: { kind: B, value: 'whole', exists: true, lines: [1, 4] } } },
  { name: 'an indented id on its own line names the list item it continues', rule: 'block ids, observed (third-party block-id test note: "^inneritem")',
    files: { 'T.md': '- a\n  - item\n    ^inner\n- c\n' }, from: 'From.md', link: '[[T#^inner]]',
    expect: { status: R, subpath: { kind: B, value: 'inner', exists: true, lines: [2, 3] } } },
  { name: 'an id after a blank line names the paragraph before it', rule: 'block ids, observed (third-party block-id test note: "^paragraph2")',
    files: { 'T.md': 'Para one\nstill one\n\n^p2\n' }, from: 'From.md', link: '[[T#^p2]]',
    expect: { status: R, subpath: { kind: B, value: 'p2', exists: true, lines: [1, 2] } } },
  { name: 'a subpath on a base file is not checked', rule: 'non-Markdown subpaths, decided; corpus kepano ![[X.base#View]]',
    files: { 'Meetings.base': 'views: []\n' }, from: 'From.md', link: '![[Meetings.base#Person]]',
    expect: { status: R, target: 'Meetings.base', subpath: { kind: H, value: 'Person', exists: null } }, cli: true },
  { name: 'a PDF page subpath is not checked', rule: 'non-Markdown subpaths, decided',
    files: { 'doc.pdf': '' }, from: 'From.md', link: '[[doc.pdf#page=3]]', expect: { status: R, subpath: { kind: H, value: 'page=3', exists: null } } },
  { name: 'a subpath of an unresolved link is not checked', rule: 'subpaths, decided',
    files: {}, from: 'From.md', link: '[[Missing#Intro]]', expect: { status: 'unresolved', subpath: { kind: H, value: 'Intro', exists: null } } },
  { name: 'a subpath of an ambiguous link is not checked', rule: 'subpaths, decided',
    files: { 'a/N.md': '# Intro', 'b/N.md': '# Intro' }, from: 'From.md', link: '[[N#Intro]]',
    expect: { status: 'ambiguous', candidates: ['a/N.md', 'b/N.md'], subpath: { kind: H, value: 'Intro', exists: null } } },
  { name: 'a subpath of an unindexed note is not checked', rule: 'subpaths + exclusions, decided',
    files: { 'archive/N.md': '# Intro' }, exclude: ['archive'], from: 'From.md', link: '[[N#Intro]]',
    expect: { status: 'unindexed', target: 'archive/N.md', subpath: { kind: H, value: 'Intro', exists: null } } },
];
