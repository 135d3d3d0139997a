import { create } from "@bufbuild/protobuf";
import { ArgError } from "../argerror/index.js";
import { requireString } from "../core/validate.js";
import { ListMemoriesRequestSchema, type Memory } from "../gen/engram/v1/engram_pb.js";
import type { ClientSettings } from "./client-flags.js";
import { usageError } from "./failure.js";
import { callEngram } from "./rpc.js";
import { memoryTable } from "./text.js";

/**
 * What `engram delete-all` would delete, found with reads only. DeleteAll
 * removes the caller's own records in the scope, in every lifecycle state;
 * a list with every gate lifted shows all readable ones, and of those the
 * private ones are necessarily the caller's. A shared record is the
 * caller's when its owner is the owner of the caller's private records;
 * when the caller has none anywhere, which shared records are theirs cannot
 * be told from the client, and the preview says how many such there are.
 */

const PAGE = 1000n;

export type DeleteAllPreview = {
  scope: string;
  /** Records the preview knows DeleteAll would remove, oldest listing order kept. */
  mine: Memory[];
  /** Shared records in the scope whose owner could not be told apart from the caller. */
  unknownOwner: number;
};

async function listAll(settings: ClientSettings, fields: { scope: string; crossSpine: boolean; visibility: string }, max?: number): Promise<Memory[]> {
  const out: Memory[] = [];
  let pageToken = "";
  for (;;) {
    const req = create(ListMemoriesRequestSchema, {
      ...fields,
      limit: max !== undefined ? BigInt(max) : PAGE,
      cursorMode: true,
      pageToken,
      includeArchived: true,
      includeSuperseded: true,
      includeScheduled: true,
    });
    const res = await callEngram(settings, (c, opts) => c.listMemories(req, opts));
    out.push(...res.memories);
    if (res.nextPageToken === "" || (max !== undefined && out.length >= max)) return out;
    pageToken = res.nextPageToken;
  }
}

export async function previewDeleteAll(settings: ClientSettings, scope: string): Promise<DeleteAllPreview> {
  try {
    // The same check DeleteAll makes first, so the preview rejects exactly what the delete would.
    requireString("scope", scope);
  } catch (err) {
    if (err instanceof ArgError) throw usageError(err.message);
    throw err;
  }
  const readable = await listAll(settings, { scope, crossSpine: false, visibility: "" });
  let owner = readable.find((m) => m.visibility === "")?.owner;
  if (owner === undefined && readable.length > 0) {
    owner = (await listAll(settings, { scope: "", crossSpine: true, visibility: "private" }, 1))[0]?.owner;
  }
  const mine = readable.filter((m) => m.visibility === "" || (owner !== undefined && m.owner === owner));
  return { scope, mine, unknownOwner: owner === undefined ? readable.length - mine.length : 0 };
}

export function previewDocument(p: DeleteAllPreview): unknown {
  return {
    dry_run: true,
    scope: p.scope,
    would_delete: p.mine.length,
    ids: p.mine.map((m) => m.id),
    unknown_owner: p.unknownOwner,
  };
}

export function previewText(p: DeleteAllPreview): string {
  const head =
    p.mine.length === 0 && p.unknownOwner === 0
      ? `preview: you own no records in scope ${p.scope}; nothing to delete`
      : `preview: delete-all would delete ${p.mine.length} record(s) you own in scope ${p.scope}; nothing was deleted (run again with --yes)`;
  const lines = [head];
  if (p.unknownOwner > 0) lines.push(`plus any of ${p.unknownOwner} shared record(s) whose owner could not be told apart from you`);
  if (p.mine.length > 0) lines.push("", memoryTable(p.mine, { score: false, now: new Date() }));
  return lines.join("\n");
}
