import { describe, expect, it } from "vitest";
import { checkEmbedderIdentity, embedderFromEnv, EmbedderError, identityKey, OpenAIEmbedder, sharedLocalEmbedder } from "../src/embed/index.js";

describe("embedder configuration from the environment", () => {
  it("picks the shared local embedder by default", () => {
    const e = embedderFromEnv({});
    expect(e).toBe(sharedLocalEmbedder());
    expect(identityKey(e.identity)).toBe("local:universal-sentence-encoder-en:512");
  });

  it("treats empty values as unset", () => {
    expect(embedderFromEnv({ ENGRAM_OPENAI_BASE_URL: "", ENGRAM_EMBED_DIM: "" })).toBe(sharedLocalEmbedder());
  });

  it("builds an OpenAI-compatible embedder when the base URL is set", () => {
    const e = embedderFromEnv({
      ENGRAM_OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      ENGRAM_EMBED_MODEL: "nomic-embed-text",
      ENGRAM_EMBED_DIM: "768",
      ENGRAM_EMBED_TIMEOUT: "500ms",
    });
    expect(e).toBeInstanceOf(OpenAIEmbedder);
    expect(e.identity).toEqual({ provider: "openai", model: "nomic-embed-text", dim: 768 });
  });

  it("rejects a missing ENGRAM_EMBED_DIM when the base URL is set", () => {
    expect(() =>
      embedderFromEnv({ ENGRAM_OPENAI_BASE_URL: "https://api.openai.com", ENGRAM_EMBED_MODEL: "text-embedding-3-small" }),
    ).toThrow(/ENGRAM_EMBED_DIM is required/);
  });

  it("rejects a dimension that is not an integer from 1 to 65536, without repeating it", () => {
    for (const dim of ["0", "-3", "12.5", "abc", "65537", "9007199254740991"]) {
      expect(() =>
        embedderFromEnv({ ENGRAM_OPENAI_BASE_URL: "https://api.openai.com", ENGRAM_EMBED_MODEL: "m", ENGRAM_EMBED_DIM: dim }),
      ).toThrow(/^ENGRAM_EMBED_DIM must be an integer from 1 to 65536$/);
    }
  });

  it("rejects a missing model without revealing the API key", () => {
    let message = "";
    try {
      embedderFromEnv({
        ENGRAM_OPENAI_BASE_URL: "https://api.openai.com",
        ENGRAM_EMBED_DIM: "1536",
        ENGRAM_OPENAI_API_KEY: "sk-never-shown",
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/ENGRAM_EMBED_MODEL is required/);
    expect(message).not.toContain("sk-never-shown");
  });

  it("rejects an invalid base URL without repeating it", () => {
    expect(() =>
      embedderFromEnv({ ENGRAM_OPENAI_BASE_URL: "user:pw@nowhere", ENGRAM_EMBED_MODEL: "m", ENGRAM_EMBED_DIM: "4" }),
    ).toThrow(/^ENGRAM_OPENAI_BASE_URL must be an absolute http/);
    try {
      embedderFromEnv({ ENGRAM_OPENAI_BASE_URL: "user:pw@nowhere", ENGRAM_EMBED_MODEL: "m", ENGRAM_EMBED_DIM: "4" });
    } catch (err) {
      expect((err as Error).message).not.toContain("pw@nowhere");
    }
  });

  it("rejects a timeout that is not a duration with a unit", () => {
    for (const timeout of ["30", "0s", "fast", "1.5s"]) {
      expect(() =>
        embedderFromEnv({
          ENGRAM_OPENAI_BASE_URL: "https://api.openai.com",
          ENGRAM_EMBED_MODEL: "m",
          ENGRAM_EMBED_DIM: "4",
          ENGRAM_EMBED_TIMEOUT: timeout,
        }),
      ).toThrow(/ENGRAM_EMBED_TIMEOUT must be a positive duration/);
    }
  });

  it("rejects OpenAI-only settings when no base URL is set", () => {
    expect(() => embedderFromEnv({ ENGRAM_EMBED_MODEL: "text-embedding-3-small" })).toThrow(
      /ENGRAM_EMBED_MODEL is set but ENGRAM_OPENAI_BASE_URL is not/,
    );
  });
});

describe("the embedder identity check", () => {
  const local = { provider: "local", model: "universal-sentence-encoder-en", dim: 512 } as const;
  const remote = { provider: "openai", model: "text-embedding-3-small", dim: 1536 } as const;

  it("accepts a first start with nothing stored", () => {
    expect(checkEmbedderIdentity(undefined, local)).toEqual({ ok: true, first: true });
  });

  it("accepts the same embedder as the one stored", () => {
    expect(checkEmbedderIdentity(identityKey(local), local)).toEqual({ ok: true, first: false });
  });

  it("refuses a different embedder and points at engram reindex", () => {
    const result = checkEmbedderIdentity(identityKey(local), remote);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain("local:universal-sentence-encoder-en:512");
    expect(result.message).toContain("openai:text-embedding-3-small:1536");
    expect(result.message).toContain("restore the original embedder configuration");
    expect(result.message).toContain("engram reindex");
  });
});
