import { createServer, type Server } from "node:http";

/**
 * Bag-of-words hashing (FNV-1a of each lower-cased word into `dim` buckets,
 * weighted by the word's hash): texts sharing words point the same way, and
 * texts sharing as many words still score apart, so a top k has no ties.
 */
export function bagOfWords(text: string, dim: number): Float32Array {
  const v = new Float32Array(dim);
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    v[h % dim]! += 1 + (h >>> 16) / 65536;
  }
  v[0]! += 0.01;
  return v;
}

/**
 * A loopback OpenAI-compatible /v1/embeddings endpoint answering with
 * bagOfWords, so a child `engram serve` embeds queries the way a test wrote
 * its records' vectors in process.
 */
export async function startBagOfWordsEmbeddings(dim: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      res.setHeader("content-type", "application/json");
      const data = input.map((t, index) => ({ object: "embedding", index, embedding: Array.from(bagOfWords(t, dim)) }));
      res.end(JSON.stringify({ object: "list", model, data }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
