import type { QdrantClient } from "@qdrant/js-client-rest";
import {
  COLLECTION_META,
  DENSE_VECTOR,
  LAYOUT_VERSION,
  LEXICAL_VECTOR,
  META_PREFIX,
  PAYLOAD_INDEXES,
  SETUP_BACKOFF_MS,
  SETUP_RETRIES,
  TERM_VECTORS_META,
  TERM_VECTORS_VERSION,
  physicalCollectionName,
} from "./layout.js";
import { QdrantSetupError, checkServerVersion } from "./server-version.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The HTTP status of a failed client call, when it had one. */
export const statusOf = (err: unknown): number | undefined => {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === "number" ? s : undefined;
};

/** Retries a setup step through the transient 500s a freshly made collection can answer with, a bounded number of times. */
export async function withSetupRetry<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const status = statusOf(err);
      if (attempt + 1 >= SETUP_RETRIES || status === undefined || status < 500) throw err;
      await sleep(SETUP_BACKOFF_MS * 2 ** attempt);
    }
  }
}

/** The collection an alias points at, if it exists. */
export async function aliasTarget(client: QdrantClient, alias: string): Promise<string | undefined> {
  const { aliases } = await withSetupRetry(() => client.getAliases());
  return aliases.find((a) => a.alias_name === alias)?.collection_name;
}

/**
 * Makes sure the deployment's collection exists behind its alias, with its
 * vectors, payload indexes, strict mode and metadata, and that it was made
 * for this dimension. Safe when several servers start at once: every step is
 * idempotent (a 409 on create is another starter's success), and the alias,
 * which is what marks the collection ready, comes last.
 */
export async function ensureCollection(client: QdrantClient, alias: string, dim: number): Promise<string> {
  const { version } = await withSetupRetry(() => client.versionInfo());
  checkServerVersion(version);
  const existing = await aliasTarget(client, alias);
  if (existing) {
    await checkCollection(client, existing, dim);
    return existing;
  }
  const name = physicalCollectionName(alias);
  await createLayout(client, name, dim);
  await withSetupRetry(() => client.updateCollectionAliases({ actions: [{ create_alias: { collection_name: name, alias_name: alias } }] }));
  return name;
}

/**
 * Makes one physical collection in engram's layout: the named vectors, strict
 * mode, every payload index, then the metadata (dimension, layout, and any
 * extra keys the caller adds). Idempotent: a 409 on create is another
 * starter's success, and the collection it finds must be made for `dim`.
 * Both a first start and `engram reindex`'s next generation are made here,
 * so the two cannot drift apart.
 */
export async function createLayout(client: QdrantClient, name: string, dim: number, metadata: Record<string, unknown> = {}): Promise<void> {
  try {
    await client.createCollection(name, {
      vectors: { [DENSE_VECTOR]: { size: dim, distance: "Cosine" } },
      sparse_vectors: { [LEXICAL_VECTOR]: { modifier: "idf" } },
      strict_mode_config: { enabled: true, unindexed_filtering_retrieve: false, unindexed_filtering_update: false },
    });
  } catch (err) {
    if (statusOf(err) !== 409) throw err;
  }
  await checkCollection(client, name, dim, true);
  for (const index of PAYLOAD_INDEXES) {
    await withSetupRetry(() => client.createPayloadIndex(name, { field_name: index.key, field_schema: index.schema as never, wait: true }));
  }
  // The 1.16-1.18 client's createCollection drops `metadata`; a PATCH carries it.
  await withSetupRetry(() =>
    client.updateCollection(name, {
      // Its points are written with current term vectors from the start: nothing to rebuild.
      metadata: { ...metadata, [COLLECTION_META.dim]: dim, [COLLECTION_META.layout]: LAYOUT_VERSION, [META_PREFIX + TERM_VECTORS_META]: TERM_VECTORS_VERSION },
    }),
  );
}

/** Refuses a collection made for another dimension or layout, before anything is served from it. */
async function checkCollection(client: QdrantClient, name: string, dim: number, fresh = false): Promise<void> {
  const info = await withSetupRetry(() => client.getCollection(name));
  const vectors = info.config.params.vectors as Record<string, { size?: number }> | undefined;
  const size = vectors?.[DENSE_VECTOR]?.size;
  if (size === undefined) throw new QdrantSetupError("the Qdrant collection has no dense vector named for engram: it was not made by engram");
  if (size !== dim) {
    throw new QdrantSetupError(`the Qdrant collection holds ${size}-dimensional vectors but the embedder makes ${dim}: run engram reindex, or point ENGRAM_QDRANT_COLLECTION elsewhere`);
  }
  const meta = (info.config as { metadata?: Record<string, unknown> | null }).metadata ?? {};
  const layout = meta[COLLECTION_META.layout];
  if (!fresh && layout !== undefined && layout !== LAYOUT_VERSION) {
    throw new QdrantSetupError(`the Qdrant collection uses payload layout ${String(layout)} but this engram writes layout ${LAYOUT_VERSION}`);
  }
}
