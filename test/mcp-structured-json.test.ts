import { describe, expect, it } from "vitest";
import { structuredJson } from "../src/mcp/structured-json.js";
import { deepFreeze } from "../src/model/deep-freeze.js";

describe("the JSON a tool result carries twice", () => {
  it("for a frozen result, is serialized once, and its structuredContent is what the mirror says and cannot be changed", () => {
    const result = deepFreeze({ id: "a", tags: ["x"], gone: undefined, nested: { n: 1 } });
    const first = structuredJson(result);
    expect(first.json).toBe('{"id":"a","tags":["x"],"nested":{"n":1}}');
    expect(first.structuredContent).toEqual(JSON.parse(first.json));
    expect(Object.keys(first.structuredContent)).not.toContain("gone");
    expect(structuredJson(result)).toBe(first);
    expect(() => (first.structuredContent.tags as string[]).push("y")).toThrow(TypeError);
  });

  it("for a result that is not frozen, is serialized on every call, so a change shows", () => {
    const result: Record<string, unknown> = { id: "b", n: 1 };
    const first = structuredJson(result);
    result.n = 2;
    const second = structuredJson(result);
    expect(first.json).toBe('{"id":"b","n":1}');
    expect(second.json).toBe('{"id":"b","n":2}');
    expect(second.structuredContent).toEqual({ id: "b", n: 2 });
    second.structuredContent.n = 3;
    expect(structuredJson(result).structuredContent.n).toBe(2);
  });
});
