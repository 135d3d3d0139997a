import type { Embedder } from "../embed/embedder.js";
import { traced } from "../model/trace-hook.js";

/**
 * The embedder calls of the operations, each in an `engram.embed` span
 * (the admission wait and the worker's own time appear beneath and on it):
 * how many texts and which provider, never the texts.
 */
export function embedQuery(embedder: Embedder, text: string): Promise<Float32Array> {
  return traced("engram.embed", () => embedder.embedQuery(text), { attributes: { "engram.embed.texts": 1, "engram.embed.provider": embedder.identity.provider } });
}

export function embedDocuments(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  return traced("engram.embed", () => embedder.embedDocuments(texts), { attributes: { "engram.embed.texts": texts.length, "engram.embed.provider": embedder.identity.provider } });
}
