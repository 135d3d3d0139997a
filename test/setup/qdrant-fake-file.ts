import { afterAll, afterEach } from "vitest";
import { closeFileQdrantFake, newSchemaViolations } from "../helpers/test-store.js";

/**
 * For every file of the `qdrant-fake` project: a request the fake found
 * outside Qdrant's published schema is a request real Qdrant would refuse,
 * so it fails the test that sent it (or the file, when its hooks sent it),
 * even if the test body tolerated the 400 it got. Then the file's fake closes.
 */
const fail = async (when: string): Promise<void> => {
  const found = await newSchemaViolations();
  if (found.length > 0) {
    throw new Error(`${found.length} violation(s) of Qdrant's schema by requests ${when} (one per schema version each request fails); the first: ${JSON.stringify(found[0])}`);
  }
};

afterEach(() => fail("during this test"));

afterAll(async () => {
  try {
    await fail("in this file's hooks");
  } finally {
    await closeFileQdrantFake();
  }
});
