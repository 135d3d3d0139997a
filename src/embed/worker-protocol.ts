/** What the pool hands a new worker at start. Structured-clonable only. */
export type WorkerData = {
  batchSize?: number;
  /**
   * Replaces the bundled model: a module (file URL) whose export (default
   * name `load`) is called with `data` inside the worker and resolves to a
   * SentenceModel. Tests use it to slow or block the model.
   */
  loader?: WorkerModelLoader;
};

export type WorkerModelLoader = { module: string; export?: string; data?: unknown };

export type WorkerRequest = { kind: "warm"; id: number } | { kind: "embed"; id: number; texts: string[] };

export type WorkerReply =
  | { kind: "loaded"; id: number }
  /** `ms`: the model's own time inside the worker, without the hand-over either way. */
  | { kind: "vectors"; id: number; vectors: Float32Array[]; ms: number }
  | { kind: "failed"; id: number; error: string; loadFailed: boolean };
