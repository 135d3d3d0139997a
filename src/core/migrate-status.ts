import { CURRENT_SCHEMA_VERSION } from "../store/index.js";
import type { CoreDeps } from "./deps.js";

export type MigrationStatus = {
  buckets: { version: number; count: number }[];
  absent: number;
  future: { version: number; count: number }[];
  future_total: number;
  total: number;
  current_version: number;
  pending: number;
};

/** Whole-store histogram; any authenticated caller, no owner filter, read-only. */
export async function migrateStatus(deps: Pick<CoreDeps, "store">, current = CURRENT_SCHEMA_VERSION): Promise<MigrationStatus> {
  const h = await deps.store.schemaHistogram();
  const versions = [...h.versions].sort((a, b) => a[0] - b[0]).map(([version, count]) => ({ version, count }));
  const buckets = versions.filter((b) => b.version <= current);
  const future = versions.filter((b) => b.version > current);
  const below = buckets.filter((b) => b.version < current).reduce((s, b) => s + b.count, 0);
  return {
    buckets,
    absent: h.absent,
    future,
    future_total: future.reduce((s, b) => s + b.count, 0),
    total: h.total,
    current_version: current,
    pending: h.absent + below,
  };
}
