import { describe, expect, it } from "vitest";
import { HeaderMap } from "../src/cli/header-map.js";

// The CLI's stand-in for fetch's Headers answers the way fetch's does for everything Connect asks of it.
describe("the CLI's header map", () => {
  it("looks names up whatever their case, and lists them in lower case, sorted, as fetch's Headers does", () => {
    const h = new HeaderMap({ "Content-Type": "application/proto", Authorization: "Bearer t" });
    expect(h.get("content-type")).toBe("application/proto");
    expect(h.has("AUTHORIZATION")).toBe(true);
    expect([...h]).toEqual([...new Headers({ "Content-Type": "application/proto", Authorization: "Bearer t" })]);
  });

  it("joins appended values with a comma and a space, and set replaces them", () => {
    const ours = new HeaderMap();
    const theirs = new Headers();
    for (const h of [ours, theirs]) {
      h.append("Accept-Encoding", "gzip");
      h.append("accept-encoding", " br ");
    }
    expect(ours.get("accept-encoding")).toBe(theirs.get("accept-encoding"));
    ours.set("Accept-Encoding", "identity");
    expect(ours.get("accept-encoding")).toBe("identity");
  });

  it("builds from pairs, from another map and from arrays of values, and forEach passes value then name", () => {
    const fromPairs = new HeaderMap([
      ["a", "1"],
      ["B", "2"],
    ]);
    const copy = new HeaderMap(fromPairs);
    const seen: string[] = [];
    copy.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual(["a=1", "b=2"]);
    expect(new HeaderMap({ te: ["trailers", "deflate"] }).get("te")).toBe("trailers, deflate");
  });

  it("answers null for a missing name and forgets a deleted one", () => {
    const h = new HeaderMap({ x: "1" });
    h.delete("X");
    expect(h.get("x")).toBeNull();
    expect(h.has("x")).toBe(false);
    expect([...h.keys()]).toEqual([]);
  });
});
