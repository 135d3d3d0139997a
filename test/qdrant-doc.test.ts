import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CLAIM_LEASE_MS,
  COLLECTION_META,
  DEFAULT_QDRANT_COLLECTION,
  DENSE_VECTOR,
  LEXICAL_VECTOR,
  MAX_PAGE,
  META_PREFIX,
  MIN_QDRANT_VERSION,
  OPTIONAL_GATE_KEYS,
  PAYLOAD_INDEXES,
  RPC_BYTE_BUDGET,
  SETUP_BACKOFF_MS,
  SETUP_RETRIES,
  TERM_VECTORS_META,
  VIEW_CEILING_BYTES,
  physicalCollectionName,
} from "../src/store/qdrant/layout.js";
import { REVISION_TRAIL_MAX } from "../src/store/qdrant/revision-trail.js";
import { MAX_CATCHUP_PASSES, REINDEX_META, SWITCH_SETTLE_MS, generationOf } from "../src/operator/reindex-qdrant.js";

const RAW = readFileSync(new URL("../docs/qdrant.md", import.meta.url), "utf8");
/** The prose with line breaks folded, so rewrapping a paragraph does not break the binding. */
const DOC = RAW.replace(/\s+/g, " ");
const n = (x: number) => x.toLocaleString("en-US");

describe("docs/qdrant.md says what the code does", () => {
  it("names the minimum server version, the default alias, the physical name and the vectors", () => {
    expect(DOC).toContain(`Qdrant **${MIN_QDRANT_VERSION}** or newer`);
    expect(DOC).toContain(`(default \`${DEFAULT_QDRANT_COLLECTION}\`)`);
    expect(physicalCollectionName("<alias>")).toBe("<alias>-g1");
    expect(DOC).toContain("`<alias>-g1`");
    expect(DOC).toContain(`- \`${DENSE_VECTOR}\`: the embedder's vector, cosine`);
    expect(DOC).toContain(`- \`${LEXICAL_VECTOR}\`: a sparse vector with \`modifier: "idf"\``);
  });

  it("names the metadata key whose absence rebuilds the term vectors", () => {
    expect(DOC).toContain(`\`${META_PREFIX}${TERM_VECTORS_META}\``);
  });

  it("lists every payload index with its type, and every optional gate key", () => {
    const table = RAW.slice(RAW.indexOf("| Key | Index |"), RAW.indexOf("`scope_prefix` and"));
    for (const { key, schema } of PAYLOAD_INDEXES) {
      const row = table.split("\n").find((line) => line.includes(`\`${key}\``));
      expect(row, key).toBeDefined();
      const type = typeof schema === "string" ? schema : schema.type;
      expect(row!.split("|")[2], key).toContain(type);
    }
    const documented = [...table.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((k) => k !== "is_tenant");
    expect(documented.sort()).toEqual(PAYLOAD_INDEXES.map((i) => i.key).sort());
    expect(PAYLOAD_INDEXES.find((i) => i.key === "owner")!.schema).toMatchObject({ is_tenant: true });
    expect(DOC).toContain(`(${OPTIONAL_GATE_KEYS.map((k) => `\`${k}\``).join(", ")})`);
  });

  it("gives the metadata keys, the lease, the setup backoff and the read budget as the code has them", () => {
    expect(DOC).toContain(`\`${COLLECTION_META.dim}\` and \`${COLLECTION_META.layout}\``);
    expect(DOC).toContain(`\`${META_PREFIX}<key>\``);
    expect(DOC).toContain(`a lease of ${CLAIM_LEASE_MS / 1000} s`);
    expect(DOC).toContain(`\`revision_trail\`: the revisions the record had before, newest first (at most ${REVISION_TRAIL_MAX})`);
    expect(DOC).toContain(`(${SETUP_RETRIES} tries from ${SETUP_BACKOFF_MS} ms, doubling)`);
    expect(RPC_BYTE_BUDGET).toBe(2 * 1024 * 1024);
    expect(DOC).toContain("no one response may carry more than 2 MiB");
    expect(DOC).toContain(`full records ${n(VIEW_CEILING_BYTES.full)} B, tags ${n(VIEW_CEILING_BYTES.tags)} B, keys ${VIEW_CEILING_BYTES.keys} B; at most ${MAX_PAGE}`);
  });

  it("describes reindex with the generation name, the markers, the catch-up bound and the settle time as the code has them", () => {
    expect(generationOf("<alias>", physicalCollectionName("<alias>", 4))).toBe(4);
    expect(physicalCollectionName("<alias>", 4 + 1)).toBe("<alias>-g5");
    expect(DOC).toContain("It makes `<alias>-g<n+1>` (`n` from the collection the alias points at)");
    expect(DOC).toContain(`marked \`${REINDEX_META.target}\` with the new identity and \`${REINDEX_META.source}\` with the generation it replaces`);
    expect(DOC).toContain(`After ${MAX_CATCHUP_PASSES} catch-up passes that still find work it stops without switching (exit 5)`);
    expect(DOC).toContain(`It waits ${SWITCH_SETTLE_MS / 1000} s for writes already under way on the old generation`);
    expect(DOC).toContain("(`delete_alias` and `create_alias` in one actions list)");
  });
});
