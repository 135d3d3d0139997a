import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { CliFailure, cliLines, oneLine } from "../cli-kit/index.js";
import { CONNECT_CODE_NAME, exitForConnectCode, isServerText, UINT64_MAX } from "../argerror/index.js";
import { EngramService } from "../gen/engram/v1/engram_pb.js";
import type { ClientSettings } from "./client-flags.js";
import { installHeaderMap } from "./header-map.js";

export type EngramClient = Client<typeof EngramService>;

/**
 * Runs one RPC with the resolved settings. The deadline is the per-call
 * timeout, so a fired --timeout surfaces as Connect deadline_exceeded. A
 * failure's exit status comes from the shared Connect-code map.
 */
export async function callEngram<T>(
  settings: ClientSettings,
  fn: (client: EngramClient, options: CallOptions) => Promise<T>,
): Promise<T> {
  installHeaderMap();
  const transport = (useBinaryFormat: boolean) =>
    createConnectTransport({
      baseUrl: settings.baseUrl,
      httpVersion: "1.1",
      useBinaryFormat,
      ...(settings.insecure ? { nodeOptions: { rejectUnauthorized: false } } : {}),
    });
  const client = createClient(EngramService, jsonForWideNumbers(transport(true), transport(false)));
  const options: CallOptions = { timeoutMs: settings.timeoutMs };
  if (settings.token !== undefined) options.headers = { authorization: `Bearer ${settings.token}` };
  try {
    return await fn(client, options);
  } catch (err) {
    const ce = ConnectError.from(err);
    // One failure is one stderr line, whatever the text holds (see oneLine).
    const text = oneLine(ce.rawMessage !== "" ? ce.rawMessage : CONNECT_CODE_NAME[ce.code]);
    // The server's own words (an envelope, a sentinel such as `not found: …`)
    // are the whole line, as the reference CLI and every other lane show
    // them. A transport's message ("connect ECONNREFUSED …") and the 401
    // line, which the CLI extends with its own remedy, carry the prefix.
    if (ce.code === Code.Unauthenticated) {
      throw new CliFailure(exitForConnectCode(ce.code), cliLines(text) + tokenHint(settings.token !== undefined));
    }
    throw new CliFailure(exitForConnectCode(ce.code), isServerText(text) ? text : cliLines(text));
  }
}

/**
 * A 401 says how a token reaches the CLI, so the fix is in the error line
 * itself. Whether one was sent tells a missing token from a refused one.
 */
export function tokenHint(sent: boolean): string {
  return sent
    ? "; the token sent was refused: check ENGRAM_TOKEN, or the file passed with --token-file <path>"
    : "; pass a token in ENGRAM_TOKEN, or in a file with --token-file <path>";
}

function holdsPastUint64(desc: DescMessage, input: object): boolean {
  const msg = input as Record<string, unknown>;
  return desc.fields.some((f) => {
    if (f.fieldKind !== "scalar" || (f.scalar !== ScalarType.UINT64 && f.scalar !== ScalarType.FIXED64)) return false;
    const v = msg[f.localName];
    return typeof v === "bigint" && v > UINT64_MAX;
  });
}

/**
 * Binary, except for a request that holds a number no uint64 holds (a flag
 * takes integers of any size): binary cannot encode it, JSON can, and the
 * server then answers it as it answers any Connect JSON caller, in its own
 * words and at its own place in the order of checks.
 */
function jsonForWideNumbers(binary: Transport, json: Transport): Transport {
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) =>
      (holdsPastUint64(method.input, input) ? json : binary).unary(method, signal, timeoutMs, header, input, contextValues),
    stream: (method, signal, timeoutMs, header, input, contextValues) => binary.stream(method, signal, timeoutMs, header, input, contextValues),
  };
}
