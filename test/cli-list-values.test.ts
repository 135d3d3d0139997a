import { describe, expect, it } from "vitest";
import { collectEntries, collectList } from "../src/cli-kit/index.js";

/** Every value of a repeated flag, folded as commander folds them. */
const fold = (parse: (v: string, p: string[] | undefined) => string[], ...values: string[]) =>
  values.reduce<string[] | undefined>((previous, v) => parse(v, previous), undefined);

describe("list flag values", () => {
  it("take repeats and comma lists, with spaces around an entry dropped", () => {
    expect(fold(collectList, "a", "b,c")).toEqual(["a", "b", "c"]);
    expect(fold(collectList, "a, b")).toEqual(["a", "b"]);
  });

  it("read a whole empty value given alone as an empty list, which clears a list on update", () => {
    expect(fold(collectList, "")).toEqual([]);
  });

  it("pass every other blank on as an entry for the server to refuse, never dropping it", () => {
    expect(fold(collectList, " ")).toEqual([""]);
    expect(fold(collectList, "a,,b")).toEqual(["a", "", "b"]);
    expect(fold(collectList, "a", "")).toEqual(["a", ""]);
  });

  it("on a destructive verb keep even a lone empty value as an entry, so it is refused rather than widening the run", () => {
    expect(fold(collectEntries, "")).toEqual([""]);
    expect(fold(collectEntries, "superseded,")).toEqual(["superseded", ""]);
  });
});
