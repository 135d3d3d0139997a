import { describe, expect, it } from "vitest";
import { encodeRecord } from "../src/store/codec.js";
import { DecodedRows } from "../src/store/embedded/decoded-rows.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

/** A row's payload text, as the embedded store writes it. */
const payloadOf = (r: Parameters<typeof encodeRecord>[0]) => encodeRecord(r).payload;

describe("the records a search decodes, kept by row", () => {
  it("hand a row read again with the same payload out as the same frozen record", () => {
    const rows = new DecodedRows();
    const payload = payloadOf({ ...syntheticRecord(1), content: "billing moved to CockroachDB" });
    const first = rows.record(7, payload);
    expect(rows.record(7, `${payload}`)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.content).toBe("billing moved to CockroachDB");
  });

  it("decode a row afresh once its payload changed", () => {
    const rows = new DecodedRows();
    const before = rows.record(7, payloadOf({ ...syntheticRecord(1), content: "billing moved to CockroachDB" }));
    const after = rows.record(7, payloadOf({ ...syntheticRecord(1), content: "billing moved back to Postgres" }));
    expect(after).not.toBe(before);
    expect(after.content).toBe("billing moved back to Postgres");
  });

  it("hold no more rows than their bound", () => {
    const rows = new DecodedRows(64);
    for (let i = 0; i < 200; i++) rows.record(i, payloadOf(syntheticRecord(i)));
    expect(rows.size).toBeLessThanOrEqual(64);
    expect(rows.record(199, payloadOf(syntheticRecord(199))).id).toBe(syntheticRecord(199).id);
  });
});
