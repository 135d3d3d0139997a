import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { OPERATION_ROWS, type Core, type Logger, type MemoryView, type OperationName, type Subject } from "../core/index.js";
import { EngramService } from "../gen/engram/v1/engram_pb.js";
import { toConnectError } from "./error-mapper.js";
import { LANE_RULES } from "./lane-rules.js";
import { memoryAnswerOf } from "./memory-answer.js";
import { argsReader } from "./request-args.js";
import { responseMessage } from "./response-message.js";
import { requireSubject } from "./subject-context.js";
import { answersInBinary } from "./wire-format.js";

const LANE = "connect" as const;

/**
 * Every core operation is an RPC of the same name, and every RPC an
 * operation: adding one to the core or to the contract without the other
 * fails to compile here.
 */
type Rpc = keyof ServiceImpl<typeof EngramService>;
type Unmatched = Exclude<Rpc, OperationName> | Exclude<OperationName, Rpc>;
export const RPCS_ARE_OPERATIONS: [Unmatched] extends [never] ? true : Unmatched = true;

type Call = (...args: unknown[]) => Promise<unknown>;
type Handler = (req: object, ctx: HandlerContext) => Promise<unknown>;

/**
 * The Connect lane, derived from the operation table: each RPC reads its
 * request by its row's kinds, calls the core with this lane's name where the
 * operation takes one, and builds its response from the result, except where
 * lane-rules.ts says otherwise; a response of one Memory answers from the
 * result view (memory-answer.ts). Nothing here validates or picks a default.
 */
export function engramServiceImpl(core: Core, log: Logger): ServiceImpl<typeof EngramService> {
  const impl: Record<string, Handler> = {};
  for (const row of OPERATION_ROWS) {
    const method = EngramService.method[row.name];
    const rule = LANE_RULES[row.name] ?? {};
    const read =
      (rule.args as ((req: object, ctx: HandlerContext) => Record<string, unknown>) | undefined) ??
      (row.kinds === undefined ? () => undefined : argsReader(method.input, Object.keys(row.kinds), rule.absent));
    const fn = core[row.name] as unknown as Call;
    const call: (s: Subject, a: unknown) => Promise<unknown> =
      row.form === "laned" ? (s, a) => fn(s, a, LANE) : row.form === "plain" ? (s, a) => fn(s, a) : row.form === "subject" ? (s) => fn(s) : () => fn();
    const shape = rule.shape as ((r: unknown) => Record<string, unknown>) | undefined;
    const memory = memoryAnswerOf(method.output);
    const answer =
      (rule.answer as ((r: unknown, ctx: HandlerContext, log: Logger) => unknown) | undefined) ??
      (memory !== undefined && shape === undefined
        ? (r: unknown, ctx: HandlerContext) => memory(r as MemoryView, answersInBinary(ctx))
        : (r: unknown) => responseMessage(method.output, shape ? shape(r) : (r as Record<string, unknown> | undefined)));
    impl[row.name] = async (req, ctx) => {
      try {
        const subject = requireSubject(ctx);
        const result = await call(subject, read(req, ctx));
        return answer(result, ctx, log);
      } catch (err) {
        throw toConnectError(err, log, method.name);
      }
    };
  }
  return impl as unknown as ServiceImpl<typeof EngramService>;
}
