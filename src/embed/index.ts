export { identityKey, embeddingText } from "./embedder.js";
export type { Embedder, EmbedderIdentity, EmbedderReadiness } from "./embedder.js";
export { EmbedderError } from "./embedder-error.js";
export {
  LocalEmbedder,
  LOCAL_IDENTITY,
  loadUniversalSentenceEncoder,
} from "./local-embedder.js";
export {
  PooledLocalEmbedder,
  sharedLocalEmbedder,
  defaultEmbedWorkers,
  DEFAULT_EMBED_QUEUE,
  MAX_DEFAULT_EMBED_WORKERS,
} from "./pooled-embedder.js";
export type { PooledLocalEmbedderOptions } from "./pooled-embedder.js";
export type { WorkerModelLoader } from "./worker-protocol.js";
export { Admission } from "./admission.js";
export { tokenizerPieces, TOKENIZER_PIECE_CHARS } from "./piecewise-tokenizer.js";
export type { LocalEmbedderOptions, SentenceModel, SentenceModelLoader } from "./local-embedder.js";
export {
  OpenAIEmbedder,
  embeddingsUrl,
  DEFAULT_OPENAI_TIMEOUT_MS,
  MAX_OPENAI_TIMEOUT_MS,
} from "./openai-embedder.js";
export type { OpenAIEmbedderConfig } from "./openai-embedder.js";
export { embedderFromEnv } from "./config.js";
export type { EmbedderEnv } from "./config.js";
export { checkEmbedderIdentity, REINDEX_IN_PROGRESS } from "./identity-check.js";
export type { IdentityCheck } from "./identity-check.js";
export { FakeEmbedder } from "./fake-embedder.js";
export type { Summarizer } from "./summarizer.js";
export { SummarizerError, oneLine } from "./summarizer.js";
export { ChatSummarizer } from "./chat-summarizer.js";
export type { ChatSummarizerConfig } from "./chat-summarizer.js";
export { summaryConfigFromEnv, SUMMARY_MODEL_ENV } from "./summary-config.js";
export type { SummaryConfig } from "./summary-config.js";
