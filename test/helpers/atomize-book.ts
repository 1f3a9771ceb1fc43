/**
 * A small rules book for the atomize tests, and a fake chat model that answers
 * each chunk with scripted entities: the fake reads the chunk text in the
 * request (as the model would) and answers for the chapter it sees.
 */
import type { FakeReply, ReceivedRequest } from './fake-provider.js';
import { openaiChat } from './fake-provider.js';

export const BOOK = `# Ember Rules

## Basics

The Warden guards the gate. Wardens carry a lantern, see [[Lantern rules|the lantern]].

A Lantern burns for one hour.

| Item | Cost |
|---|---|
| Lantern | 5 coins |

## Combat

Roll two dice to strike. The Warden may parry once per round.

- Parry: cancel one strike.
- Strike: deal one wound.

## Example of play

"Hold the gate!" shouts the Warden. Mira rolls two dice and grins.

The lantern gutters as Mira strikes twice.
`;

export const NARRATIVE_LINES = ['"Hold the gate!" shouts the Warden.', 'Mira rolls two dice and grins.', 'The lantern gutters as Mira strikes twice.'];
export const INVENTED = 'Parry always wins ties.';

type Entity = { name: string; kind: string; aliases: string[]; sentences: string[] };
const answer = (entities: Entity[]) => JSON.stringify({ entities });

/** The entities a faithful model finds in a chunk, by the chapter the chunk text shows. */
export function entitiesFor(chunk: string): Entity[] {
  if (chunk.includes('## Basics'))
    return [
      { name: 'Warden', kind: 'role', aliases: ['Wardens'], sentences: ['The Warden guards the gate.', 'Wardens carry a lantern, see the lantern.'] },
      { name: 'Lantern', kind: 'item', aliases: [], sentences: ['A Lantern burns for one hour.', '| Lantern | 5 coins |'] },
    ];
  if (chunk.includes('## Combat'))
    return [
      { name: 'Strike', kind: 'rule', aliases: [], sentences: ['Roll two dice to strike.', '- Strike: deal one wound.'] },
      // one invented sentence among copied ones
      { name: 'Parry', kind: 'rule', aliases: [], sentences: ['The Warden may parry once per round.', '- Parry: cancel one strike.', INVENTED] },
    ];
  if (chunk.includes('## Example of play'))
    return [
      { name: 'Warden', kind: 'role', aliases: [], sentences: ['"Hold the gate!" shouts the Warden.'] },
      { name: 'Mira', kind: 'character', aliases: [], sentences: ['Mira rolls two dice and grins.', 'The lantern gutters as Mira strikes twice.'] },
    ];
  return [];
}

export function userText(req: ReceivedRequest): string {
  const msgs = req.json?.messages as { role: string; content: string }[] | undefined;
  return msgs?.find((m) => m.role === 'user')?.content ?? '';
}

/**
 * The scripted model: the first time it sees the Combat chunk it answers
 * outside the schema (a missing `sentences`), then faithfully.
 */
export function scriptedModel(): (req: ReceivedRequest) => FakeReply {
  let brokeOnce = false;
  return (req) => {
    const text = userText(req);
    if (text.includes('## Combat') && !brokeOnce) {
      brokeOnce = true;
      return openaiChat(JSON.stringify({ entities: [{ name: 'Strike', kind: 'rule', aliases: [] }] }));
    }
    return openaiChat(answer(entitiesFor(text)));
  };
}

/** A model that answers every chunk faithfully (no broken answer). */
export function faithfulModel(): (req: ReceivedRequest) => FakeReply {
  return (req) => openaiChat(answer(entitiesFor(userText(req))));
}
