import { inverse, irreversible, type MigrationStep, type Payload } from "./step.js";

/**
 * v0 → v1: every record gets a short id. Irreversible: once minted, a short
 * id may already be cited by agents in later calls, so
 * removing it would break references a snapshot restore is the only cure for.
 * The reason is the reference's own text, word for word: operators' scripts
 * match on the refusal it ends up in.
 */
const mintShortIds: MigrationStep = {
  from: 0,
  to: 1,
  addedKeys: ["short_id"],
  reversibility: irreversible("snapshot recovery: minted short_ids may already be cited by get_memory/supersede_memory (D-03)"),
  apply: (p, ctx) => (typeof p.short_id === "string" && p.short_id !== "" ? p : { ...p, short_id: ctx.shortId() }),
};

/**
 * v1 → v2: the UTF-8 byte length of content, so size reports and budgets
 * read a number instead of re-measuring every record. Derived, so its
 * inverse simply drops it.
 */
const contentBytes: MigrationStep = {
  from: 1,
  to: 2,
  addedKeys: ["content_bytes"],
  reversibility: inverse((p) => {
    const { content_bytes: _dropped, ...rest } = p;
    return rest;
  }),
  apply: (p) => {
    // Object.assign, not a spread: a key added to a spread copy costs V8
    // several times the copy, and a sweep pays it per record, twice.
    const next: Payload = Object.assign({}, p);
    next.content_bytes = Buffer.byteLength(String(p.content ?? ""), "utf8");
    return next;
  },
};

export const STEPS: readonly MigrationStep[] = [mintShortIds, contentBytes];

/**
 * Keys the codec derives on every ordinary write at the current version, so
 * fresh records never need the sweep. Reads `p` and fills the keys into
 * `into`, which the codec merges into the payload it writes.
 */
export function deriveCurrentKeys(p: Payload, into: Payload): Payload {
  into.content_bytes = Buffer.byteLength(String(p.content ?? ""), "utf8");
  return into;
}

/** Every problem at once, so a broken registry is fixed in one pass. */
export function validateRegistry(steps: readonly MigrationStep[]): string[] {
  const errors: string[] = [];
  const froms = new Set<number>();
  const tos = new Set<number>();
  steps.forEach((s, i) => {
    if (froms.has(s.from)) errors.push(`step ${i}: duplicate From=${s.from}`);
    if (tos.has(s.to)) errors.push(`step ${i}: duplicate To=${s.to}`);
    froms.add(s.from);
    tos.add(s.to);
    if (!(s.to > s.from)) errors.push(`step ${i}: To=${s.to} must be greater than From=${s.from}`);
    if (i > 0 && s.from !== steps[i - 1]!.to) errors.push(`step ${i}: From=${s.from} does not continue from the previous To=${steps[i - 1]!.to}`);
    if (s.addedKeys.length === 0) errors.push(`step ${i}: declares no added keys`);
    const r = s.reversibility as { kind?: string; reason?: string; inverse?: unknown } | undefined;
    if (!r || (r.kind !== "inverse" && r.kind !== "irreversible")) errors.push(`step ${i}: missing reversibility declaration`);
    else if (r.kind === "irreversible" && !(r.reason ?? "").trim()) errors.push(`step ${i}: irreversible without a reason`);
    else if (r.kind === "inverse" && typeof r.inverse !== "function") errors.push(`step ${i}: inverse is not a function`);
  });
  return errors;
}

export class RegistryError extends Error {
  override readonly name = "RegistryError";
}

/** The contiguous chain from → to (from < to), or undefined when it breaks. */
export function stepsFrom(steps: readonly MigrationStep[], from: number, to: number): MigrationStep[] | undefined {
  const chain: MigrationStep[] = [];
  let v = from;
  while (v < to) {
    const s = steps.find((x) => x.from === v);
    if (!s || s.to > to) return undefined;
    chain.push(s);
    v = s.to;
  }
  return v === to ? chain : undefined;
}

/** The registry is checked when loaded: a broken one never runs. */
const problems = validateRegistry(STEPS);
if (problems.length > 0) throw new RegistryError(`migration registry is invalid: ${problems.join("; ")}`);

export const LATEST_VERSION = STEPS[STEPS.length - 1]!.to;
