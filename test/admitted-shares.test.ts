import { describe, expect, it } from "vitest";
import { ANONYMOUS } from "../src/model/subject.js";
import { AdmittedShares } from "../src/store/embedded/admitted-shares.js";
import { GATE_ON, type RecordQuery } from "../src/store/store.js";

const crossSpine: RecordQuery = { subject: ANONYMOUS, gate: GATE_ON, now: 1_700_000_000 };

describe("the admitted share kept for each search filter", () => {
  it("is the same cell for the same filter at a later clock, while the mirror is unchanged", () => {
    const shares = new AdmittedShares();
    const cell = shares.cellFor(crossSpine, 7, 1_000);
    cell.share = 0.9;
    expect(shares.cellFor({ ...crossSpine, now: crossSpine.now + 30 }, 7, 2_000)).toBe(cell);
  });

  it("is a cell of its own for a filter that admits other records", () => {
    const shares = new AdmittedShares();
    shares.cellFor(crossSpine, 7, 1_000).share = 0.9;
    expect(shares.cellFor({ ...crossSpine, scopePrefix: "discovery:" }, 7, 1_000).share).toBeUndefined();
    expect(shares.cellFor({ ...crossSpine, gate: null }, 7, 1_000).share).toBeUndefined();
  });

  it("is forgotten once the mirror changes", () => {
    const shares = new AdmittedShares();
    shares.cellFor(crossSpine, 7, 1_000).share = 0.9;
    expect(shares.cellFor(crossSpine, 8, 1_000).share).toBeUndefined();
  });

  it("is forgotten after a minute, since windows open and close without a write", () => {
    const shares = new AdmittedShares();
    shares.cellFor(crossSpine, 7, 1_000).share = 0.9;
    expect(shares.cellFor(crossSpine, 7, 61_000).share).toBe(0.9);
    expect(shares.cellFor(crossSpine, 7, 61_001).share).toBeUndefined();
  });
});
