import { describe, expect, it } from "vitest";
import { namespacedOwner, ownerFromClaims } from "../src/auth/index.js";
import { parseClaimList } from "../src/auth/owner-claim.js";
import { parseTokenSpec } from "../src/auth/index.js";

describe("the owner a verified token names", () => {
  it("takes a verified email as it is, and refuses an email whose verification is not the boolean true", () => {
    expect(ownerFromClaims({ email: "ada@example.test", email_verified: true, sub: "u1" }, ["email"])).toEqual({ owner: "ada@example.test", actor: "ada@example.test" });
    for (const verified of [false, "true", 1, undefined]) {
      expect(ownerFromClaims({ email: "ada@example.test", email_verified: verified, sub: "u1" }, ["email", "sub"]), String(verified)).toBeUndefined();
    }
  });

  it("stores any other winning claim as <len(claim)>:<claim>:<len(value)>:<value>, lengths in UTF-8 bytes", () => {
    expect(namespacedOwner("sub", "svc-1")).toBe("3:sub:5:svc-1");
    expect(namespacedOwner("client_id", "svc-indexer")).toBe("9:client_id:11:svc-indexer");
    expect(namespacedOwner("sub", "zoë:1")).toBe("3:sub:6:zoë:1");
    expect(ownerFromClaims({ client_id: "svc-indexer", azp: "other" }, ["client_id", "azp"])).toEqual({ owner: "9:client_id:11:svc-indexer", actor: "9:client_id:11:svc-indexer" });
  });

  it("tries the claims in order, skipping absent and empty ones, and names nobody when none is present", () => {
    expect(ownerFromClaims({ client_id: "", azp: "svc-2", sub: "s" }, ["client_id", "azp"])?.owner).toBe("3:azp:5:svc-2");
    expect(ownerFromClaims({ sub: "u1", preferred_username: "ada" }, ["email", "sub"])).toEqual({ owner: "3:sub:2:u1", actor: "ada" });
    expect(ownerFromClaims({ sub: "u1" }, ["email"])).toBeUndefined();
    expect(ownerFromClaims({ client_id: "" }, ["client_id", "azp"])).toBeUndefined();
    expect(ownerFromClaims({ sub: "a\u0000b" }, ["sub"])).toBeUndefined();
  });

  it("reads an ordered claim list, refuses a malformed one, and keeps static owners out of the namespaced form", () => {
    expect(parseClaimList(" email , sub ", ["x"], "ENGRAM_OWNER_CLAIM")).toEqual(["email", "sub"]);
    expect(parseClaimList(undefined, ["client_id", "azp"], "V")).toEqual(["client_id", "azp"]);
    expect(() => parseClaimList("email,sub claim", [], "ENGRAM_OWNER_CLAIM")).toThrow("ENGRAM_OWNER_CLAIM: entry 2 must be a claim name (letters, digits, _ . : -)");
    expect(() => parseTokenSpec("3:sub:5:svc-1=tok-1")).toThrow("ENGRAM_AUTH_TOKENS: entry 1 has an owner in the <length>:<claim>: form the OIDC lanes use");
  });
});
