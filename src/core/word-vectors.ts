import type { Embedder } from "../embed/embedder.js";

/**
 * Floats of word vectors kept per embedder (32 MiB): 16,384 words of the
 * bundled model's 512 dimensions. A store's words repeat from one search to
 * the next, so most searches embed none or a few.
 */
export const WORD_VECTOR_FLOATS = 8 * 1024 * 1024;

/** Words embedded by one background call: many short words to a call cost little each. */
export const WARM_BATCH = 64;

/** How long offered words wait for a full batch before a call takes what there is. */
export const WARM_WAIT_MS = 250;

/** Offered words that may wait for the background; the rest are dropped. */
export const WARM_PENDING = 4096;

/**
 * Vectors of single words, made by the embedder that made the records' and
 * kept by word, least recently used dropped first. A word's vector depends
 * on the word and the model only, so the cache changes how long a search
 * takes, never its answer.
 */
export class WordVectors {
  private readonly kept = new Map<string, Float32Array>();
  private readonly pending = new Set<string>();
  private readonly embedding = new Map<string, Promise<Float32Array>>();
  private background = false;
  private warming: Promise<void> | undefined;
  readonly capacity: number;

  constructor(
    private readonly embedder: Embedder,
    floats = WORD_VECTOR_FLOATS,
  ) {
    this.capacity = Math.max(1, Math.floor(floats / embedder.identity.dim));
  }

  /**
   * The vector of every word given; those not kept are embedded in one call,
   * except words another lookup is embedding now, which wait for that call:
   * searches that start together after a restart embed each word once.
   */
  async lookup(words: Iterable<string>): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const missing = new Set<string>();
    const awaited = new Map<string, Promise<Float32Array>>();
    for (const w of words) {
      if (found.has(w) || missing.has(w) || awaited.has(w)) continue;
      const v = this.kept.get(w);
      if (v !== undefined) {
        // Re-inserted, so the map's order is the order of last use.
        this.kept.delete(w);
        this.kept.set(w, v);
        found.set(w, v);
        continue;
      }
      const coming = this.embedding.get(w);
      if (coming !== undefined) awaited.set(w, coming);
      else missing.add(w);
    }
    if (missing.size > 0) {
      const asked = [...missing];
      const call = this.embedder.embedDocuments(asked);
      asked.forEach((w, i) => {
        const one = call.then((vectors) => vectors[i]!);
        // Whoever waits on it sees a failure; nobody waiting must not be an unhandled rejection.
        one.catch(() => {});
        this.embedding.set(w, one);
      });
      try {
        const vectors = await call;
        asked.forEach((w, i) => {
          found.set(w, vectors[i]!);
          this.keep(w, vectors[i]!);
        });
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
        fresh.forEach((w, i) => this.keep(w, vectors[i]!));
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

  private keep(word: string, vector: Float32Array): void {
    this.kept.delete(word);
    this.kept.set(word, vector);
    while (this.kept.size > this.capacity) this.kept.delete(this.kept.keys().next().value!);
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
