import type { Embedder, EmbedderIdentity } from "./embedder.js";
import { toUnitVector } from "./unit-vector.js";

/**
 * A deterministic embedder for unit tests: a hashed bag of words (lower-cased
 * letter/digit runs, FNV-1a into `dim` buckets), unit-normalised. Texts that
 * share words score higher; identical word multisets embed identically.
 *
 * `calls` counts embedDocuments/embedQuery invocations and `texts` the
 * texts embedded, so a test can prove a rejected request embedded nothing.
 */
export class FakeEmbedder implements Embedder {
  readonly identity: EmbedderIdentity;
  calls = 0;
  texts = 0;

  constructor(dim = 64, model = "fake-hashed-bag-of-words") {
    if (!Number.isInteger(dim) || dim < 1) throw new RangeError("dim must be a positive integer");
    this.identity = Object.freeze({ provider: "local", model, dim });
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    this.texts += texts.length;
    return texts.map((t) => this.vector(t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    this.calls++;
    this.texts++;
    return this.vector(text);
  }

  private vector(text: string): Float32Array {
    const counts = new Array<number>(this.identity.dim).fill(0);
    const tokens = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const token of tokens) counts[fnv1a(token) % this.identity.dim]! += 1;
    // A text without words still needs a unit vector; give it a fixed one.
    if (tokens.length === 0) counts[0] = 1;
    return toUnitVector(counts, this.identity.dim, "fake embedder");
  }
}

/** 32-bit FNV-1a over the UTF-16 code units of `s`. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
