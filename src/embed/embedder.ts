/** Which embedder produced a vector space. Two identities with different keys are incompatible. */
export interface EmbedderIdentity {
  readonly provider: "local" | "openai";
  readonly model: string;
  readonly dim: number;
}

/** Whether an embedder can serve now; `reason` is a short fixed phrase such as "model loading". */
export type EmbedderReadiness = { ready: boolean; reason?: string };

/**
 * The embedding port. Every vector returned has length `identity.dim` and
 * unit Euclidean norm, so cosine similarity is a plain dot product.
 */
export interface Embedder {
  readonly identity: EmbedderIdentity;
  /** One vector per text, in input order. An empty list returns an empty list. */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
  /** For /readyz. Absent means always ready. The reason never carries a value or a path. */
  readiness?(): { ready: boolean; reason?: string };
  /** Loads what the first request would otherwise wait for. */
  warmUp?(): Promise<void>;
  /** Releases threads or sockets so the process can exit. */
  close?(): Promise<void>;
}

/** A stable string for an identity, e.g. "local:universal-sentence-encoder-en:512". */
export function identityKey(id: EmbedderIdentity): string {
  return `${id.provider}:${id.model}:${id.dim}`;
}

/** The text embedded for a memory: its content, plus its tags when it has any. */
export function embeddingText(content: string, tags: readonly string[]): string {
  return tags.length === 0 ? content : `${content}\n\ntags: ${tags.join(", ")}`;
}
