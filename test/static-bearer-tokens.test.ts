/**
 * Static bearer tokens: how a token list is parsed and refused, and how a
 * presented token is matched, from a spec string, the environment or a file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ANONYMOUS } from "../src/model/subject.js";
import { TokenAuth, loadTokenAuth, parseTokenSpec } from "../src/auth/index.js";

// Count constant-time comparisons, to show that authentication visits every
// configured token instead of stopping at the first match.
const timingSafeEqualCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean => {
      timingSafeEqualCalls.count++;
      return actual.timingSafeEqual(a, b);
    },
  };
});

describe("static bearer tokens", () => {
  const secret = "s3cr3t-VALUE";

  it.each([
    [`alice=${secret},bob`, /entry 2 must have the form owner=token/],
    [`=${secret}`, /entry 1 has an empty owner/],
    [`alice=${secret}, ,bob=`, /entry 2 has an empty token/],
    [`alice=${secret},bob=${secret}`, /entry 2 reuses a token/],
    [`alice=${secret} x`, /entry 1 has a token with whitespace/],
  ])("names a bad entry by position without the token text (%#)", (spec, message) => {
    let caught: unknown;
    try {
      parseTokenSpec(spec);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).not.toContain(secret);
    expect((caught as Error).message).not.toContain("s3cr3t");
  });

  it("lets one owner hold several tokens and skips empty entries", () => {
    const tokens = parseTokenSpec(" alice=a1 ,, alice=a2 , bob=b1 ,");
    expect([...tokens]).toEqual([
      ["a1", "alice"],
      ["a2", "alice"],
      ["b1", "bob"],
    ]);
  });

  it("returns the right owner among several, comparing against every token", () => {
    const auth = new TokenAuth(parseTokenSpec("alice=tok-a,bob=tok-b,carol=tok-c,dave=tok-d"));
    expect(auth.anonymous).toBe(false);
    for (const [token, owner] of [["tok-a", "alice"], ["tok-c", "carol"], ["tok-d", "dave"]] as const) {
      timingSafeEqualCalls.count = 0;
      expect(auth.authenticate(`Bearer ${token}`)).toEqual({ owner, actor: owner, anonymous: false });
      expect(timingSafeEqualCalls.count).toBe(4);
    }
    timingSafeEqualCalls.count = 0;
    expect(auth.authenticate("Bearer tok-x")).toBeUndefined();
    expect(timingSafeEqualCalls.count).toBe(4);
  });

  it("accepts the scheme in any case and refuses anything that is not a matching bearer", () => {
    const auth = new TokenAuth(parseTokenSpec("alice=tok-a"));
    expect(auth.authenticate("bearer tok-a")?.owner).toBe("alice");
    expect(auth.authenticate("BEARER   tok-a")?.owner).toBe("alice");
    for (const header of [undefined, null, "", "tok-a", "Basic tok-a", "Bearer", "Bearer tok-a extra", "Bearer tok-", "Bearer tok-aa"]) {
      expect(auth.authenticate(header)).toBeUndefined();
    }
  });

  it("runs anonymous when no tokens are configured, even when a header is sent", () => {
    const auth = loadTokenAuth({});
    expect(auth.anonymous).toBe(true);
    expect(auth.authenticate(undefined)).toBe(ANONYMOUS);
    expect(auth.authenticate("Bearer anything")).toBe(ANONYMOUS);
    expect(loadTokenAuth({ ENGRAM_AUTH_TOKENS: "  " }).anonymous).toBe(true);
  });

  describe("loaded from the environment and a file", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "engram-tokens-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("merges both sources, with newlines, spaces and comments allowed in the file", () => {
      const file = join(dir, "tokens");
      writeFileSync(file, "# team tokens\ncarol=tok-c\n\n  dave=tok-d erin=tok-e,\n");
      const auth = loadTokenAuth({ ENGRAM_AUTH_TOKENS: "alice=tok-a,bob=tok-b", ENGRAM_AUTH_TOKENS_FILE: file });
      expect(auth.owners()).toEqual(["alice", "bob", "carol", "dave", "erin"]);
      expect(auth.authenticate("Bearer tok-b")?.owner).toBe("bob");
      expect(auth.authenticate("Bearer tok-e")?.owner).toBe("erin");
    });

    it("refuses one token for two owners across sources without naming it", () => {
      const file = join(dir, "dup");
      writeFileSync(file, `x=other\nbob=${secret}\n`);
      expect(() => loadTokenAuth({ ENGRAM_AUTH_TOKENS: `alice=${secret}`, ENGRAM_AUTH_TOKENS_FILE: file })).toThrow(
        /^ENGRAM_AUTH_TOKENS_FILE: entry 2 reuses a token already assigned to another owner$/,
      );
    });

    it("refuses a token file that is set but holds no tokens, and one that cannot be read", () => {
      const empty = join(dir, "empty");
      writeFileSync(empty, "# nothing yet\n\n");
      expect(() => loadTokenAuth({ ENGRAM_AUTH_TOKENS_FILE: empty })).toThrow(/^ENGRAM_AUTH_TOKENS_FILE: the file it names holds no owner=token entries$/);
      expect(() => loadTokenAuth({ ENGRAM_AUTH_TOKENS_FILE: join(dir, "missing") })).toThrow(/^ENGRAM_AUTH_TOKENS_FILE: cannot read the file it names \(ENOENT\)$/);
    });

    it("never repeats what the file setting holds: the inline form pasted there would print its tokens", () => {
      expect(() => loadTokenAuth({ ENGRAM_AUTH_TOKENS_FILE: `alice=${secret}` })).toThrow(/^ENGRAM_AUTH_TOKENS_FILE: cannot read the file it names \(ENOENT\)$/);
    });

    it("refuses an inline setting that names no token, as it refuses an empty file, instead of running anonymous", () => {
      for (const value of [",", " , ,, "]) {
        expect(() => loadTokenAuth({ ENGRAM_AUTH_TOKENS: value })).toThrow(/^ENGRAM_AUTH_TOKENS holds no owner=token entries$/);
        expect(() => loadTokenAuth({ ENGRAM_SERVICE_AUTH_STATIC_TOKENS: value })).toThrow(/^ENGRAM_SERVICE_AUTH_STATIC_TOKENS holds no owner=token entries$/);
      }
    });

    it("keeps tokens out of JSON and inspection output", () => {
      const auth = new TokenAuth(parseTokenSpec(`alice=${secret}`));
      expect(JSON.stringify(auth)).not.toContain(secret);
      expect(JSON.stringify(auth)).toBe('{"anonymous":false,"owners":["alice"]}');
    });
  });
});
