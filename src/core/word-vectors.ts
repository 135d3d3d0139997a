import type { Embedder } from "../embed/embedder.js";
import { quantize, type QuantizedVector } from "../store/index.js";
import { CodeArena } from "./code-arena.js";

/**
 * Bytes of word vectors kept per embedder (16 MiB): 32,768 words of the
 * bundled model's 512 dimensions, a byte each (quantized-vector.ts). A
 * store's words repeat from one search to the next, so most searches embed
 * none or a few.
 */
export const WORD_VECTOR_BYTES = 16 * 1024 * 1024;

/** Words whose codes one chunk of the arena holds (code-arena.ts): 512 KiB at 512 dimensions. */
export const ARENA_CHUNK = 1024;

/** Words embedded by one background call: many short words to a call cost little each. */
export const WARM_BATCH = 64;

/** How long offered words wait for a full batch before a call takes what there is. */
export const WARM_WAIT_MS = 250;

/** Offered words that may wait for the background; the rest are dropped. */
export const WARM_PENDING = 4096;

/** A kept word's vector, and the lookup that last used it. */
type Kept = { vector: QuantizedVector; used: number };

/**
 * Vectors of single words, made by the embedder that made the records' and
 * kept by word, quantized, least recently used dropped first. A word's vector depends
 * on the word and the model, and on the batch it was embedded in only in its
 * last bits (at most 1e-7 apart between alone and in a batch of 64,
 * measured with the local model), so the cache changes how long a search
 * takes and, beyond rounding, never its answer.
 *
 * A hit only stamps its entry with the lookup's number: moving it to the
 * end of the map instead (a delete and a set for each of a search's ~2,000
 * words) cost a search about 0.9 ms. Past capacity, the least recently
 * stamped eighth goes at once (ties in the order the words came), so
 * finding them is paid once per many words kept.
 */
export class WordVectors {
  private readonly kept = new Map<string, Kept>();
  private lookups = 0;
  private readonly pending = new Set<string>();
  private readonly embedding = new Map<string, Promise<QuantizedVector>>();
  private background = false;
  private warming: Promise<void> | undefined;
  private readonly arena: CodeArena;
  readonly capacity: number;

  constructor(
    private readonly embedder: Embedder,
    bytes = WORD_VECTOR_BYTES,
  ) {
    this.capacity = Math.max(1, Math.floor(bytes / embedder.identity.dim));
    this.arena = new CodeArena(embedder.identity.dim, Math.min(this.capacity, ARENA_CHUNK));
  }

  /** The vector of every word given, by word (see vectorsOf). */
  async lookup(words: Iterable<string>): Promise<Map<string, QuantizedVector>> {
    const list = [...words];
    const vectors = await this.vectorsOf(list);
    return new Map(list.map((w, i) => [w, vectors[i]!]));
  }

  /**
   * The vector of each word given, in the order given; those not kept are
   * embedded in one call, except words another lookup is embedding now,
   * which wait for that call: searches that start together after a restart
   * embed each word once. A kept word costs one map read, which is all most
   * of a search's words cost.
   */
  async vectorsOf(words: readonly string[]): Promise<QuantizedVector[]> {
    const now = ++this.lookups;
    const out = new Array<QuantizedVector>(words.length);
    let missing: Map<string, number[]> | undefined;
    for (let i = 0; i < words.length; i++) {
      const kept = this.kept.get(words[i]!);
      if (kept !== undefined) {
        kept.used = now;
        out[i] = kept.vector;
        continue;
      }
      missing ??= new Map();
      const at = missing.get(words[i]!);
      if (at === undefined) missing.set(words[i]!, [i]);
      else at.push(i);
    }
    if (missing !== undefined) for (const [w, v] of await this.embedMissing([...missing.keys()])) for (const i of missing.get(w)!) out[i] = v;
    return out;
  }

  /** Vectors of words not kept: embedded in one call, or awaited where another lookup is embedding them now. */
  private async embedMissing(words: readonly string[]): Promise<Map<string, QuantizedVector>> {
    const found = new Map<string, QuantizedVector>();
    const asked: string[] = [];
    const awaited = new Map<string, Promise<QuantizedVector>>();
    for (const w of words) {
      const coming = this.embedding.get(w);
      if (coming !== undefined) awaited.set(w, coming);
      else asked.push(w);
    }
    if (asked.length > 0) {
      const call = this.embedder.embedDocuments(asked).then((vectors) => vectors.map(quantize));
      asked.forEach((w, i) => {
        const one = call.then((vectors) => vectors[i]!);
        // Whoever waits on it sees a failure; nobody waiting must not be an unhandled rejection.
        one.catch(() => {});
        this.embedding.set(w, one);
      });
      try {
        const vectors = await call;
        asked.forEach((w, i) => found.set(w, this.keep(w, vectors[i]!)));
      } finally {
        for (const w of asked) this.embedding.delete(w);
      }
    }
    for (const [w, coming] of awaited) found.set(w, await coming);
    return found;
  }

  /**
   * Has words offered by writes embedded in the background from now on. For
   * an embedder whose spare time costs nothing but CPU (the local model):
   * a remote one would be sent words nobody may ever search for.
   */
  warmInBackground(): void {
    this.background = true;
  }

  /**
   * Words a write just stored. In the background, when enabled, those not
   * kept are embedded WARM_BATCH at a time (fewer once WARM_WAIT_MS pass
   * with no full batch), one embedder call in flight, so
   * a search over what was written finds them kept; at most WARM_PENDING
   * wait, the rest are left to the search that meets them. Never waits,
   * never throws: a refused or failed call drops what waits.
   */
  offer(words: Iterable<string>): void {
    if (!this.background) return;
    for (const w of words) if (this.pending.size < WARM_PENDING && !this.kept.has(w)) this.pending.add(w);
    if (this.warming === undefined && this.pending.size > 0) this.warming = this.warm();
  }

  /** Resolves once no offered word waits (for tests). */
  async settled(): Promise<void> {
    while (this.warming !== undefined) await this.warming;
  }

  private async warm(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        // A call for a write's few words would cost about what the write's
        // own did: words wait for a full batch, or for writes to pause.
        if (this.pending.size < WARM_BATCH) await new Promise((r) => setTimeout(r, WARM_WAIT_MS).unref());
        if (this.pending.size === 0) break;
        const batch = [...this.pending].slice(0, WARM_BATCH);
        for (const w of batch) this.pending.delete(w);
        const fresh = batch.filter((w) => !this.kept.has(w));
        if (fresh.length === 0) continue;
        const vectors = await this.embedder.embedDocuments(fresh);
        fresh.forEach((w, i) => this.keep(w, quantize(vectors[i]!)));
      }
    } catch {
      this.pending.clear();
    } finally {
      this.warming = undefined;
    }
  }

  /** How many words are kept now. */
  get size(): number {
    return this.kept.size;
  }

  /**
   * Keeps the word's vector, its codes in the arena, and answers the vector
   * as kept. A word kept already (two calls raced for it) keeps the vector
   * it has: the two differ in their last bits at most, and placing it again
   * would take arena room nothing gives back until the next compaction.
   */
  private keep(word: string, vector: QuantizedVector): QuantizedVector {
    const kept = this.kept.get(word);
    if (kept !== undefined) {
      kept.used = this.lookups;
      return kept.vector;
    }
    const entry = { vector: this.arena.place(vector), used: this.lookups };
    this.kept.set(word, entry);
    if (this.kept.size > this.capacity) this.dropLeastRecent();
    return entry.vector;
  }

  /**
   * Drops the least recently used words down to seven eighths of capacity
   * (to capacity when that is under eight), and compacts the codes of the rest.
   */
  private dropLeastRecent(): void {
    const drop = this.kept.size - (this.capacity - Math.floor(this.capacity / 8));
    const stamps = Float64Array.from(this.kept.values(), (k) => k.used).sort();
    const cut = stamps[drop - 1]!;
    // Words last used before the cut all go; of those used at it, the first ones met.
    let atCut = drop - stamps.filter((u) => u < cut).length;
    for (const [w, k] of this.kept) {
      if (k.used < cut) this.kept.delete(w);
      else if (k.used === cut && atCut > 0) {
        this.kept.delete(w);
        atCut--;
      }
    }
    this.arena.compact(this.kept.values());
  }
}

const BY_EMBEDDER = new WeakMap<Embedder, WordVectors>();

/** The one word cache of an embedder, made on first use. */
export function wordVectorsOf(embedder: Embedder): WordVectors {
  let kept = BY_EMBEDDER.get(embedder);
  if (kept === undefined) {
    kept = new WordVectors(embedder);
    BY_EMBEDDER.set(embedder, kept);
  }
  return kept;
}
