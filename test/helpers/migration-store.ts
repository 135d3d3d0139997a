/**
 * An embedded store seeded as an older binary wrote it, and what the
 * migration tests read back from its file.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MemoryRecord } from "../../src/core/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { syntheticRecord } from "./synthetic-record.js";

export function freshStore(): EmbeddedStore {
  return EmbeddedStore.open({ dataDir: mkdtempSync(join(tmpdir(), "engram-mig-")), dim: 4 });
}

export function payload(i: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  return syntheticRecord(i, extra);
}

export const V = new Float32Array([1, 0, 0, 0]);

/** Seeds records written by an older binary, exactly as it would have stored them. */
export function seed(store: EmbeddedStore, n: number, version: number | null, start = 0): void {
  store.transaction(() => {
    for (let i = start; i < start + n; i++) {
      const p = payload(i, version === null || version === 0 ? {} : { short_id: `S${String(i).padStart(9, "0")}` });
      store.writeRecord(p, V, version);
    }
  });
}

export function payloads(store: EmbeddedStore): Map<string, string> {
  const rows = store.database.prepare("SELECT id, payload FROM records ORDER BY id").all() as { id: string; payload: string }[];
  return new Map(rows.map((r) => [r.id, r.payload]));
}

/** The payloads without their revisions: the data a round trip must give back exactly. */
export function data(store: EmbeddedStore): Map<string, string> {
  return new Map(
    [...payloads(store)].map(([id, p]) => {
      const { revision: _r, ...rest } = JSON.parse(p) as MemoryRecord;
      return [id, JSON.stringify(rest)];
    }),
  );
}

export function revisions(store: EmbeddedStore): Map<string, string | undefined> {
  return new Map([...payloads(store)].map(([id, p]) => [id, (JSON.parse(p) as MemoryRecord).revision]));
}
