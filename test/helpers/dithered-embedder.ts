import { FakeEmbedder } from "../../src/embed/fake-embedder.js";

/**
 * The fake bag of words gives every record that shares no word with a query
 * the same cosine, exactly 0; which of such equals fill a lane's last places
 * is each index's own order (storage order on the embedded store, point id on
 * Qdrant), not the ranking. A small dither from each text's own hash keeps
 * exact ties out, so what is compared is the ranking.
 */
export class DitheredEmbedder extends FakeEmbedder {
  override async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return (await super.embedDocuments(texts)).map((v, i) => dither(v, texts[i]!));
  }

  override async embedQuery(text: string): Promise<Float32Array> {
    return dither(await super.embedQuery(text), text);
  }
}

function dither(v: Float32Array, text: string): Float32Array {
  let h = 2166136261;
  const out = v.map((x, d) => {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ (text.charCodeAt(i) + d), 16777619);
    return x + 0.05 * ((h >>> 0) / 2 ** 32);
  });
  const norm = Math.hypot(...out);
  return out.map((x) => x / norm);
}
