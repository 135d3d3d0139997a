/** Where kept word vectors' codes live: what the word cache relies on of it. */
import { describe, expect, it } from "vitest";
import { CodeArena } from "../src/core/code-arena.js";
import type { QuantizedVector } from "../src/store/index.js";

const vector = (...codes: number[]): QuantizedVector => ({ codes: Int8Array.from(codes), scale: codes[0]! / 100 });

describe("the code arena", () => {
  it("places vectors side by side in one chunk, codes and scale as given", () => {
    const arena = new CodeArena(3, 4);
    const a = arena.place(vector(1, 2, 3));
    const b = arena.place(vector(4, 5, 6));
    expect([...a.codes, ...b.codes]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(b.scale).toBe(0.04);
    expect(b.codes.buffer).toBe(a.codes.buffer);
    expect(b.codes.byteOffset).toBe(a.codes.byteOffset + 3);
  });

  it("starts a new chunk when one is full, leaving the vectors placed before as they were", () => {
    const arena = new CodeArena(2, 2);
    const placed = [vector(1, 1), vector(2, 2), vector(3, 3)].map((v) => arena.place(v));
    expect(placed[2]!.codes.buffer).not.toBe(placed[0]!.codes.buffer);
    expect(placed.map((v) => [...v.codes])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it("copies the vectors kept into fresh chunks when compacted, and never writes over a vector a search still holds", () => {
    const arena = new CodeArena(2, 2);
    const kept = [{ vector: arena.place(vector(1, 1)) }, { vector: arena.place(vector(2, 2)) }];
    const held = kept[0]!.vector;
    arena.compact([kept[1]!]);
    for (let i = 0; i < 5; i++) arena.place(vector(9, 9));
    expect([...held.codes]).toEqual([1, 1]);
    expect([...kept[1]!.vector.codes]).toEqual([2, 2]);
    expect(kept[1]!.vector.codes.buffer).not.toBe(held.codes.buffer);
  });
});
