import { VaultgateError } from '../errors.js';
import { consentGate } from './consent-gate.js';
import { readNoteByArg } from './note-arg.js';
import { oneLine } from './one-line.js';
import { defineOperation } from './operation.js';

/**
 * The evidence verbs (DESIGN §5.3): `relate prepare|validate|send` and
 * `consent list`. None writes inside the vault; catalogs, answers and consent
 * records go to the data store.
 */

const catalogArg = {
  name: 'catalog_id',
  type: 'string',
  positional: true,
  description: 'catalog id printed by `relate prepare`',
  nonEmpty: true,
} as const;

export const relatePrepareOp = defineOperation({
  name: 'relate_prepare',
  command: 'relate prepare',
  group: 'read',
  summary: 'Build an evidence catalog for two notes: exact fragments with ids, both texts, the answer schema and the exact prompt',
  description:
    'The catalog is stored under the data root until it expires. A model (or a person) answers in the strict schema ' +
    '`vaultgate.relation.v1`, citing fragment ids only; `relate validate` checks the answer. Reads the two notes; writes nothing in the vault.',
  examples: ['vaultgate relate prepare "Work/Decisions.md" "Projects/vaultgate/Decisions.md"', "vaultgate relate prepare A.md B.md --question 'Should A cite B for the cache rule?' --json"],
  params: [
    { name: 'a', type: 'string', positional: true, description: 'note A (vault-relative path)', nonEmpty: true },
    { name: 'b', type: 'string', positional: true, description: 'note B (vault-relative path)', nonEmpty: true },
    { name: 'question', type: 'string', placeholder: 'text', description: 'what the model is asked about the two notes (a default question otherwise)' },
    { name: 'max_fragments', type: 'int', min: 1, max: 100_000, default: 1000, placeholder: 'n', description: 'most fragments per side (the note texts are never cut)' },
    { name: 'ttl_days', type: 'number', min: 0.001, max: 365, default: 7, placeholder: 'days', description: 'how long the catalog is kept' },
  ] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runRelatePrepare(input, ctx) {
    const { relatePrepare } = await import('../wing/evidence/index.js');
    const session = ctx.session();
    const opts = { question: input.question, maxFragments: input.max_fragments, ttlDays: input.ttl_days };
    // A and B are NOTE arguments: each a path or a name (src/ops/note-arg.ts)
    const prepared = await readNoteByArg(session, input.a, (a) => readNoteByArg(session, input.b, (b) => relatePrepare(session.root, session.env, a, b, opts)));
    return { ...prepared.value.value };
  },
  text: (r) =>
    [
      `catalog ${r.catalog_id} (expires ${r.expires_at})`,
      `A: ${r.sides.A.path}`,
      `B: ${r.sides.B.path}`,
      // one fragment per line: a fragment's own line breaks and runs of spaces read as one space, cut at a word with `…` (--json has every text whole)
      ...r.fragments.map((f) => `${f.id}${f.ambiguous ? ' (ambiguous)' : ''}  ${oneLine(f.text, FRAGMENT_SHOWN)}`),
    ].join('\n'),
});

/** Characters of a fragment's text `relate prepare` shows on a terminal line. */
const FRAGMENT_SHOWN = 100;

export const relateValidateOp = defineOperation({
  name: 'relate_validate',
  command: 'relate validate',
  group: 'read',
  summary: 'Check an answer against its catalog: exact or refused; accepted recommendations carry the fragment texts',
  description:
    'Exit 0 only when every recommendation is accepted; any refusal exits 2 and lists each (code, recommendation, field, id); ' +
    'a note changed since the catalog exits 75. The answer is kept for the record either way.',
  examples: ['vaultgate relate validate cat-0123456789abcdef answer.json', 'model-cli < prompt.json | vaultgate relate validate cat-0123456789abcdef -'],
  params: [catalogArg, { name: 'answer', type: 'string', positional: true, description: 'answer JSON file, or - for stdin', nonEmpty: true }] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runRelateValidate(input, ctx) {
    const { relateValidate, ANSWER_LIMITS } = await import('../wing/evidence/index.js');
    const { readFileArg } = await import('./read-bounded.js');
    const session = ctx.session();
    // Read up to one byte past the limit: the validator then refuses the answer by its size.
    const answer = readFileArg(ctx, input.answer, { limit: ANSWER_LIMITS.bytes, what: 'answer file' });
    return { ...relateValidate(session.root, session.env, input.catalog_id, answer) };
  },
  text: (r) => r.recommendations.map((rec) => `#${rec.index} ${rec.kind}: ${rec.claim}`).join('\n'),
});

export const relateSendOp = defineOperation({
  name: 'relate_send',
  command: 'relate send',
  group: 'read',
  summary: 'Send a catalog’s exact request to a chat provider (Ollama, OpenAI-compatible), keep the raw answer, validate it',
  description:
    'A provider whose URL is not loopback gets nothing without the person\'s consent: without it the command says what would be sent where ' +
    '(destination, notes, bytes) and exits 77; --consent on a terminal shows that and asks; the web inbox can approve it too. Unreachable provider: exit 69.',
  examples: ['vaultgate relate send cat-0123456789abcdef --provider ollama --model llama3.1', 'vaultgate relate send cat-0123456789abcdef --provider openai --consent'],
  params: [
    catalogArg,
    { name: 'provider', type: 'string', required: true, placeholder: 'name', description: 'provider name: `ollama`, or one configured under `providers:` in the machine config', nonEmpty: true },
    { name: 'model', type: 'string', placeholder: 'name', description: 'chat model (else the provider’s chat_model)' },
    { name: 'consent', type: 'boolean', cliOnly: true, description: 'for a provider off this machine: show what would be sent where and ask you on this terminal (never offered to MCP clients)' },
  ] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: async function runRelateSend(input, ctx) {
    const { relateSend } = await import('../wing/evidence/index.js');
    const session = ctx.session();
    return { ...(await relateSend(session.root, session.env, input.catalog_id, { provider: input.provider, model: input.model, gate: consentGate(ctx, input.consent) })) };
  },
  text: (r) =>
    [`sent ${r.sent.request_bytes} bytes (${r.sent.files.map((f) => f.path).join(', ')}) to ${r.sent.destination}`, ...r.recommendations.map((rec) => `#${rec.index} ${rec.kind}: ${rec.claim}`)].join('\n'),
});

export const consentListOp = defineOperation({
  name: 'consent_list',
  command: 'consent list',
  group: 'admin',
  summary: 'Consents given to send note text to a provider off this machine: who, when, what, where',
  examples: ['vaultgate consent list', 'vaultgate consent list --json'],
  params: [{ name: 'limit', type: 'int', min: 1, max: 100_000, default: 100, placeholder: 'n', description: 'most records, newest first' }] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runConsentList(input, ctx) {
    const { listConsents } = await import('../wing/providers/index.js');
    const session = ctx.session();
    const consents = listConsents(session.root, session.env, input.limit);
    return { total: consents.length, consents };
  },
  text: (r) =>
    r.consents.length === 0
      ? 'no consents given'
      : r.consents.map((c) => `${c.granted_at}  ${c.who}  ${c.purpose} → ${c.destination} (${c.model}): ${c.files.length} notes, ${c.request_bytes} bytes`).join('\n'),
});

/** One pending consent request, as `consent pending` and the web inbox show it. */
const REQUEST_ID = { name: 'id', type: 'string', positional: true, description: 'consent request id (cr-…), from the refusal or `consent pending`', nonEmpty: true } as const;

function requestLine(r: { id: string; state: string; purpose: string; destination: string; notes: number; sections: number; request_bytes: number; agent: string | null }): string {
  return `${r.id}  ${r.state}  ${r.purpose} → ${r.destination}: ${r.notes} notes, ${r.sections} texts, ${r.request_bytes} bytes${r.agent ? `  (asked by ${r.agent})` : ''}`;
}

export const consentPendingOp = defineOperation({
  name: 'consent_pending',
  command: 'consent pending',
  group: 'admin',
  summary: 'Requests to send note text off this machine that wait for the person: destination, purpose, bytes',
  description: 'Made by every command refused with CONSENT_REQUIRED (an agent over MCP included). The person approves one in the web inbox, or with `consent approve ID` on a terminal; the next identical run then sends, once.',
  examples: ['vaultgate consent pending', 'vaultgate consent pending --all --json'],
  params: [
    { name: 'all', type: 'boolean', description: 'also the decided and used requests not yet expired' },
    { name: 'limit', type: 'int', min: 1, max: 1000, default: 100, placeholder: 'n', description: 'most requests, newest first' },
  ] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runConsentPending(input, ctx) {
    const { listConsentRequests } = await import('../wing/providers/index.js');
    const session = ctx.session();
    const requests = listConsentRequests(session.root, session.env, { all: input.all, limit: input.limit });
    return { total: requests.length, requests };
  },
  text: (r) => (r.requests.length === 0 ? 'no consent requests waiting' : r.requests.map(requestLine).join('\n')),
});

/**
 * `consent approve ID`: the person's yes. In the web inbox the page's token
 * and CSRF guard stand for the person (as for apply); on the CLI the request
 * is shown on the terminal and the person must type yes there. No other face
 * (MCP, the daemon, a run without a terminal) can approve.
 */
export const consentApproveOp = defineOperation({
  name: 'consent_approve',
  command: 'consent approve',
  group: 'admin',
  summary: 'Approve a pending consent request (the web inbox, or a terminal that asks you): the next identical run sends, once',
  examples: ['vaultgate consent approve cr-0123456789ab', 'vaultgate consent pending && vaultgate consent approve cr-0123456789ab'],
  params: [REQUEST_ID] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runConsentApprove(input, ctx) {
    const { decideConsentRequest, getConsentRequest, requestQuestion } = await import('../wing/providers/index.js');
    const session = ctx.session();
    if (ctx.face !== 'web') {
      const request = getConsentRequest(session.root, session.env, input.id);
      if (!request || request.state !== 'pending') return { request: decideConsentRequest(session.root, session.env, input.id, 'approved') };
      const answer = ctx.face === 'cli' && ctx.confirm ? ctx.confirm(requestQuestion(request)) : null;
      if (answer !== true) {
        throw new VaultgateError(answer === false ? 'CONSENT_DECLINED' : 'CONSENT_REQUIRED', answer === false ? `not approved: you did not type yes for ${input.id}` : `approving ${input.id} needs the person at a terminal, and this run has none`, {
          details: { consent_request: input.id },
          hint: 'Approve it in the web inbox (`vaultgate serve`), or run `vaultgate consent approve ' + input.id + '` in a terminal, which shows the request and asks.',
        });
      }
    }
    return { request: decideConsentRequest(session.root, session.env, input.id, 'approved', ctx.face === 'web' ? 'web inbox' : undefined) };
  },
  text: (r) => `approved ${requestLine(r.request)}; the next identical run sends it, once`,
});

export const consentDenyOp = defineOperation({
  name: 'consent_deny',
  command: 'consent deny',
  group: 'admin',
  summary: 'Decline a pending consent request: identical runs are refused until it expires',
  examples: ['vaultgate consent deny cr-0123456789ab', 'vaultgate consent deny cr-0123456789ab --json'],
  params: [REQUEST_ID] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runConsentDeny(input, ctx) {
    const { decideConsentRequest } = await import('../wing/providers/index.js');
    const session = ctx.session();
    return { request: decideConsentRequest(session.root, session.env, input.id, 'declined', ctx.face === 'web' ? 'web inbox' : undefined) };
  },
  text: (r) => `declined ${requestLine(r.request)}`,
});

export const verifyOp = defineOperation({
  name: 'verify',
  command: 'verify',
  group: 'read',
  summary: 'Check an agent’s cited answer: every quote verbatim in the cited section of the current file',
  description:
    'ANSWER is {"claims":[{"text","evidence":[{"id"} | {"path","lines":[from,to],"quote"}]}]}; ids are context-packet evidence ids, ' +
    'looked up in --packet. It checks that quotes exist where cited, not that they prove the claims. Exit 0 either way; --strict exits 2 unless verified.',
  examples: ['vaultgate verify answer.json', 'vaultgate verify answer.json --packet packet.json --strict'],
  params: [
    { name: 'answer', type: 'string', positional: true, description: 'answer JSON file, or - for stdin', nonEmpty: true },
    { name: 'packet', type: 'string', placeholder: 'file', description: 'the context packet (`vaultgate context --json`) the answer’s evidence ids come from' },
    { name: 'strict', type: 'boolean', description: 'exit 2 unless every claim is verified' },
  ] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runVerify(input, ctx) {
    const { verifyAnswer, VERIFY_LIMITS } = await import('../wing/evidence/index.js');
    const { readFileArg, decodeUtf8Arg } = await import('./read-bounded.js');
    const read = (arg: string, what: string) => {
      const tooLarge = (limit: number) => new VaultgateError('INVALID_INPUT', `the ${what} is over ${limit} bytes`, { hint: `Give a smaller ${what}.` });
      return decodeUtf8Arg(readFileArg(ctx, arg, { limit: VERIFY_LIMITS.bytes, what, tooLarge }), { what: `the ${what}`, hint: `Save the ${what} as UTF-8.` });
    };
    const answer = read(input.answer, 'answer');
    const packet = input.packet === undefined ? undefined : read(input.packet, 'packet');
    return { ...verifyAnswer(ctx.session().root, answer, packet) };
  },
  text: (r) =>
    [
      r.verified ? 'verified' : 'NOT verified',
      ...r.claims.flatMap((c, i) => [`claim ${i + 1}: ${c.verified ? 'ok' : 'not verified'} — ${c.text}`, ...c.citations.map((x) => `  ${x.status}  ${x.id ?? ''}${x.path ?? ''}${x.lines ? `:${x.lines[0]}-${x.lines[1]}` : ''}${x.reason ? `  (${x.reason})` : ''}`)]),
      r.note,
    ].join('\n'),
  exitCode: (r, input) => (input.strict && !r.verified ? 2 : 0),
});
