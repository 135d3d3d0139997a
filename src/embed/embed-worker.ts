/**
 * The entry of one embedding worker thread. It owns one LocalEmbedder, so
 * the model loads once per worker, on the first job (or a warm-up), and the
 * TensorFlow.js work never runs on the server's event loop.
 */
import { parentPort, workerData } from "node:worker_threads";
import { LocalEmbedder, loadUniversalSentenceEncoder, type SentenceModelLoader } from "./local-embedder.js";
import type { WorkerData, WorkerReply, WorkerRequest } from "./worker-protocol.js";

// The stdio MCP lane owns the process's stdout, and a worker's stdout is
// forwarded to it. Everything this thread would print goes to stderr
// instead: console's log/info/debug and direct writes alike.
const toStderr = (...args: unknown[]): void => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const port = parentPort;
if (port === null) throw new Error("embed-worker must run as a worker thread");
const data = workerData as WorkerData;

const load: SentenceModelLoader =
  data.loader === undefined
    ? loadUniversalSentenceEncoder
    : async () => {
        const spec = data.loader!;
        const mod = (await import(spec.module)) as Record<string, unknown>;
        const fn = mod[spec.export ?? "load"];
        if (typeof fn !== "function") throw new Error("the model loader module exports no loader function");
        return (fn as (d: unknown) => ReturnType<SentenceModelLoader>)(spec.data);
      };

const embedder = new LocalEmbedder({ load, batchSize: data.batchSize });

function reply(msg: WorkerReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer);
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : "non-error thrown";
}

port.on("message", (req: WorkerRequest) => {
  void (async () => {
    try {
      if (req.kind === "warm") {
        await embedder.warmUp();
        reply({ kind: "loaded", id: req.id });
        return;
      }
      const started = performance.now();
      const vectors = await embedder.embedDocuments(req.texts);
      reply({ kind: "vectors", id: req.id, vectors, ms: performance.now() - started }, vectors.map((v) => v.buffer as ArrayBuffer));
    } catch (err) {
      reply({ kind: "failed", id: req.id, error: describe(err), loadFailed: !embedder.isLoaded() });
    }
  })();
});
