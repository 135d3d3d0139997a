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

/**
 * Work that needs no query vector, done while the query embeds (off the
 * event loop, in a worker or a remote service): the answers of `work`, in
 * order, once the vector is there too. The embedder's failure is the
 * call's whenever the work has not failed first, as it would be had the
 * vector been awaited before the work began.
 */
export async function whileEmbedding<T extends readonly unknown[]>(vector: Promise<Float32Array>, work: readonly [...{ [I in keyof T]: Promise<T[I]> }]): Promise<T> {
  const [, ...answers] = await Promise.all([vector, ...work]);
  return answers as unknown as T;
}
