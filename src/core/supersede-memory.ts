import { alreadySuperseded, argError, idempotencyConflict, notFound, ruleImmutable } from "../argerror/index.js";
import { embeddingText, identityKey } from "../embed/embedder.js";
import { RecordExistsError, TargetsGoneError, TargetsSupersededError } from "../store/index.js";
import type { SupersedeArgs } from "./args.js";
import { byteLength } from "./bytes.js";
import type { CoreDeps } from "./deps.js";
import { newRecord } from "./new-record.js";
import { holdsNonIdCharacter } from "./resolve.js";
import type { MemoryRecord } from "../model/record.js";
import { mintShortId } from "../model/short-id.js";
import type { Subject } from "../model/subject.js";
import { validateStoreArgs } from "./validate.js";
import { checkIdempotency, type WriteResult } from "./write-record.js";
import { compactView, type MemoryView } from "./view.js";
import { softWords } from "./rank-soft.js";
import { wordVectorsOf } from "./word-vectors.js";
import { embedDocuments } from "./embed-traced.js";

export type SupersedeResult =
  | ({ validated: false } & WriteResult)
  | { validated: true; supersedes: string[]; targets: MemoryView[] };

type Target = { input: string; index: number; record: MemoryRecord };

/** Offenders in caller order, each input named once, exactly as sent. */
function inputsOf(list: readonly { input: string; index: number }[]): string[] {
  return [...new Set([...list].sort((a, b) => a.index - b.index).map((t) => t.input))];
}

function checkSetShape(a: SupersedeArgs, maxBytes: number): readonly string[] {
  const list = a.supersedes ?? [];
  if (list.length === 0) throw argError("supersedes", "required", "supersedes is required");
  list.forEach((s, i) => {
    if (s.trim() === "") throw argError("supersedes", "required", "supersedes entries must not be blank", { index: i });
    const n = byteLength(s);
    if (n > maxBytes) {
      throw argError("supersedes", "too_long", `supersedes[${i}] too large: ${n} bytes (max ${maxBytes})`, { index: i, max: maxBytes, got: n });
    }
    // The not-found and other target sentinels repeat each input: it must stay on one line.
    if (holdsNonIdCharacter(s)) {
      throw argError("supersedes", "format", `supersedes[${i}] must not contain control characters or line breaks`, { index: i });
    }
  });
  return list;
}

/**
 * Stage 2: every input must resolve to a record the caller owns. Missing,
 * ambiguous and not-owned land in one bucket so none can be told apart.
 * Survivors are deduplicated by resolved id, first occurrence kept.
 */
async function resolveTargets(deps: CoreDeps, subject: Subject, inputs: readonly string[]): Promise<Target[]> {
  const unaddressable: { input: string; index: number }[] = [];
  const found: Target[] = [];
  for (const [index, input] of inputs.entries()) {
    const r = await deps.store.resolve(input);
    const record = r.kind === "id" ? await deps.store.getOwned(r.id, subject) : undefined;
    if (record) found.push({ input, index, record });
    else unaddressable.push({ input, index });
  }
  if (unaddressable.length > 0) throw notFound(inputsOf(unaddressable));
  const seen = new Set<string>();
  return found.filter((t) => !seen.has(t.record.id) && seen.add(t.record.id));
}

/**
 * Merges one or more targets into one new record. Exactly one failure class
 * per response, in order: argument checks, set shape, addressability, (the
 * idempotency replay), rule targets, already superseded. validate_only runs
 * the same checks and writes nothing.
 */
export async function supersedeMemory(deps: CoreDeps, subject: Subject, a: SupersedeArgs): Promise<SupersedeResult> {
  validateStoreArgs(a, deps.limits, "supersede");
  const inputs = checkSetShape(a, deps.limits.maxTargetBytes);
  const targets = await resolveTargets(deps, subject, inputs);
  const targetIds = targets.map((t) => t.record.id);

  const keyed = a.validate_only ? undefined : await checkIdempotency(deps, subject, a, ["supersedes", ...targetIds]);
  if (keyed && "replay" in keyed) return { validated: false, ...keyed.replay };

  const rules = targets.filter((t) => t.record.category === "rule");
  if (rules.length > 0) throw ruleImmutable("supersede", inputsOf(rules));
  const taken = targets.filter((t) => t.record.superseded_by);
  if (taken.length > 0) throw alreadySuperseded(inputsOf(taken));

  if (a.validate_only) {
    return {
      validated: true,
      supersedes: targetIds,
      targets: targets.map((t) => compactView(t.record, deps.limits.summaryMaxChars)),
    };
  }

  const rec = newRecord(a, subject, deps.now(), { supersedes: targetIds });
  if (keyed) {
    rec.id = keyed.pointId;
    rec.idempotency_fingerprint = keyed.fingerprint;
  }
  const [vector] = await embedDocuments(deps.embedder, [embeddingText(rec.content, rec.tags)]);
  wordVectorsOf(deps.embedder).offer(softWords(rec));
  rec.short_id = await mintShortId((c) => deps.store.countShortId(c));
  rec.embedder_identity = identityKey(deps.embedder.identity);
  try {
    await deps.store.supersede(rec, vector!, targetIds, subject);
  } catch (err) {
    if (err instanceof TargetsGoneError) throw notFound(inputsOf(targets));
    if (err instanceof RecordExistsError && keyed) {
      // The key already made a record: the same content replays it, other content is a conflict.
      const persisted = await deps.store.getRaw(rec.id);
      if (persisted && persisted.idempotency_fingerprint === rec.idempotency_fingerprint) {
        return { validated: false, id: persisted.id, short_id: persisted.short_id };
      }
      throw idempotencyConflict();
    }
    if (err instanceof TargetsSupersededError) {
      // Lost a race to our own identical keyed retry: that is a success.
      if (keyed) {
        const persisted = await deps.store.getRaw(rec.id);
        if (persisted && persisted.idempotency_fingerprint === rec.idempotency_fingerprint) {
          return { validated: false, id: persisted.id, short_id: persisted.short_id };
        }
      }
      throw alreadySuperseded(inputsOf(targets.filter((t) => err.ids.includes(t.record.id))));
    }
    throw err;
  }
  deps.onCreated?.(rec);
  return { validated: false, id: rec.id, short_id: rec.short_id };
}
