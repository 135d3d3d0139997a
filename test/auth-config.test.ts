import { describe, expect, it } from "vitest";
import { loadAuthenticator } from "../src/auth/index.js";

describe("the bearer lanes' settings", () => {
  it("refuse an OIDC audience set without its issuer, instead of starting anonymous", () => {
    expect(() => loadAuthenticator({ ENGRAM_OIDC_AUDIENCE: "https://engram.example" })).toThrow(
      /^ENGRAM_OIDC_AUDIENCE is set but ENGRAM_OIDC_ISSUER is not; set the issuer whose tokens carry that audience$/,
    );
    expect(() => loadAuthenticator({ ENGRAM_SERVICE_AUTH_OIDC_AUDIENCE: "engram" })).toThrow(
      /^ENGRAM_SERVICE_AUTH_OIDC_AUDIENCE is set but ENGRAM_SERVICE_AUTH_OIDC_ISSUER is not; /,
    );
  });

  it("read a blank audience as unset, as every setting", () => {
    expect(loadAuthenticator({ ENGRAM_OIDC_AUDIENCE: "  " }).anonymous).toBe(true);
  });
});
