/**
 * `--param name=value` as a ranking profile: a variant of the default built by
 * copying (`{ ...profile, rank: { ...profile.rank, chooseNotes: 0 } }`), which
 * the eval then passes to every search and context call. Nothing in src/ is
 * rewritten, so a variant cannot leak into another run in the same process.
 *
 * A name is a field of one of the profile's parts (`chooseNotes`,
 * `familyWeight`, `nextSectionRatio`), a part and its field (`rank.chooseNotes`),
 * or a column weight (`weights.body`).
 */

/** The profile's shape as the eval sees it: parts of numbers (and one nested object of numbers). */
type Part = Readonly<Record<string, unknown>>;
export type ProfileLike = Readonly<Record<string, Part>>;
/** What {@link profileWith} takes: the profile itself (RankingProfile) or the eval's loosely typed view of it. */
type AnyProfile = object;

function valueOf(raw: string | undefined): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return raw !== undefined && /^-?[\d.]+$/.test(raw) ? Number(raw) : raw;
}

/** `base` with each `name=value` applied; throws on a name no part has. */
export function profileWith<P extends AnyProfile>(base: P, params: readonly string[]): P {
  let out = base as unknown as ProfileLike;
  for (const item of params) {
    const [name, raw] = item.split('=') as [string, string | undefined];
    const value = valueOf(raw);
    const path = name.split('.');
    const partName = path.length > 1 && path[0]! in out ? path.shift()! : Object.keys(out).find((k) => path[0]! in out[k]!);
    const part = partName === undefined ? undefined : out[partName];
    if (partName === undefined || !part || !(path[0]! in part) || path.length > 2) throw new Error(`unknown --param ${name}`);
    const [field, sub] = path as [string, string | undefined];
    let next: unknown = value;
    if (sub !== undefined) {
      const inner = part[field] as Record<string, unknown>;
      if (!(sub in inner)) throw new Error(`unknown --param ${name}`);
      next = { ...inner, [sub]: value };
    }
    out = { ...out, [partName]: { ...part, [field]: next } };
  }
  return out as unknown as P;
}
