import { Code, ConnectError } from "@connectrpc/connect";
import { expect } from "vitest";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import type { TestServer } from "./engram-server.js";

export type Client = ReturnType<TestServer["client"]>;

export type EnvelopeRow<Ctx> = {
  name: string;
  call: (c: Client, ctx: Ctx) => Promise<unknown>;
  envelope: string;
  code: Code;
};

/** A value no rejection may echo back, in any error or log line. */
export const SECRET = "sekrit-7f3a-DO-NOT-ECHO";
export const pad = (n: number) => (SECRET + "x".repeat(n)).slice(0, n);

/**
 * Asserts one rejection: the exact envelope, the Connect code, an ErrorInfo
 * whose reason is the hint, and no trace of the secret anywhere.
 */
export async function expectEnvelope<Ctx>(row: EnvelopeRow<Ctx>, client: Client, ctx: Ctx, server: TestServer): Promise<void> {
  const err = await row.call(client, ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the call must fail").toBeInstanceOf(ConnectError);
  const ce = err as ConnectError;
  expect(ce.rawMessage).toBe(row.envelope);
  expect(Code[ce.code]).toBe(Code[row.code]);
  const info = ce.findDetails(ErrorInfoSchema)[0];
  expect(info?.reason).toBe(row.envelope.split(" hint=")[1]!.split(":")[0]!.toUpperCase());
  expect(JSON.stringify(ce)).not.toContain(SECRET);
  expect(ce.message).not.toContain(SECRET);
  expect(ce.findDetails(ErrorInfoSchema).map((d) => JSON.stringify(d.metadata)).join("")).not.toContain(SECRET);
  expect(server.log.text()).not.toContain(SECRET);
}
