/**
 * One handler per tool, derived from its row of the operation table: the
 * row's description, the input shape its kinds and docs give, and a body that
 * calls the same core operation as the Connect lane (with lane "mcp", so the
 * core applies this lane's defaults) and answers as the row says. Nothing
 * here validates, defaults or classifies; rejections are raised by the core
 * and turned into tool errors in mcp-server.ts.
 */
import type { z } from "zod";
import { CONNECT_CODE_NAME } from "../argerror/index.js";
import { classifyAndLog } from "../observe/index.js";
import type { Core, Subject, ToolLane } from "../core/index.js";
import { toolInput } from "./shapes.js";
import { TOOL_NAMES, TOOL_ROW, type ToolName } from "./tool-table.js";

const LANE = "mcp" as const;

export type ToolContext = { core: Core; subject: Subject };

/** A success: the human line first, then `structured` (also mirrored as JSON text). */
export type ToolOutput = { text: string; structured: Record<string, unknown> };

export type ToolHandler<S extends z.ZodRawShape = z.ZodRawShape> = {
  description: string;
  input: S;
  run(ctx: ToolContext, args: z.infer<z.ZodObject<S>>): Promise<ToolOutput>;
};

/** What the registry holds: any handler, its argument type erased. */
export type AnyToolHandler = {
  description: string;
  input: z.ZodRawShape;
  run(ctx: ToolContext, args: never): Promise<ToolOutput>;
};

type Call = (s: Subject, a: Record<string, unknown>, lane?: typeof LANE) => Promise<unknown>;

const lanes = new WeakMap<Core, Map<string, ToolLane>>();

/** What an answer needs from this lane, made once per core and tool: a refused batch record classified and logged as the tool's own. */
function laneOf(core: Core, tool: string): ToolLane {
  let byTool = lanes.get(core);
  if (byTool === undefined) lanes.set(core, (byTool = new Map()));
  let lane = byTool.get(tool);
  if (lane === undefined) {
    lane = {
      refusal: (err) => {
        const c = classifyAndLog(err, core.deps.log, "tool call", { tool });
        return { code: CONNECT_CODE_NAME[c.code], message: c.message };
      },
    };
    byTool.set(tool, lane);
  }
  return lane;
}

function handlerFor(name: ToolName): AnyToolHandler {
  const row = TOOL_ROW[name];
  const tool = row.tool;
  // The tool's own names back to the core's (MCP's `cursor` is the core's `page_token`).
  const toCore = Object.entries((tool.rename ?? {}) as Record<string, string>).map(([core, own]) => [own, core] as const);
  const laned = row.form === "laned";
  return {
    description: tool.description,
    input: toolInput(row),
    run: async ({ core, subject }: ToolContext, sent: Record<string, unknown>) => {
      let args = sent;
      if (toCore.length > 0) {
        args = { ...sent };
        for (const [own, coreName] of toCore) {
          if (own in args) {
            args[coreName] = args[own];
            delete args[own];
          }
        }
      }
      const call = core[row.name] as unknown as Call;
      const result = await (laned ? call(subject, args, LANE) : call(subject, args));
      return tool.answer(result, args, laneOf(core, name));
    },
  } as AnyToolHandler;
}

export const TOOL_HANDLERS = Object.fromEntries(TOOL_NAMES.map((n) => [n, handlerFor(n)])) as Readonly<Record<ToolName, AnyToolHandler>>;

export function handlerOf(name: ToolName): AnyToolHandler {
  return TOOL_HANDLERS[name];
}
