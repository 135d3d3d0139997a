import { parseArgs } from "node:util";
import { startQdrantFake, type QdrantFake } from "./server.js";

// `npm run qdrant:fake -- --port <n> [--version 1.17.1] [--api-key K]`: serve until killed.
const { values } = parseArgs({
  options: { port: { type: "string", default: "6333" }, version: { type: "string" }, "api-key": { type: "string" } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write("qdrant fake: --port must be an integer between 0 and 65535\n");
  process.exit(2);
}

// Handlers go in before the port opens: a supervisor may signal as soon as it reads the line.
let fake: QdrantFake | undefined;
const stop = () => {
  (fake?.close() ?? Promise.resolve()).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

fake = await startQdrantFake({ port, version: values.version, apiKey: values["api-key"] });
process.stdout.write(`qdrant fake listening on ${fake.url}\n`);
