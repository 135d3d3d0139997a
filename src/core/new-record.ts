import { randomUUID } from "node:crypto";
import type { StoreArgs } from "./args.js";
import type { Citation, MemoryRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import { uniqueTags } from "./validate.js";

export function normalizeCitations(list: StoreArgs["citations"]): Citation[] {
  return (list ?? []).map((c) => ({
    kind: c.kind ?? "",
    ref: c.ref ?? "",
    locator: c.locator ?? "",
    pin: c.pin ?? "",
    excerpt: c.excerpt ?? "",
  }));
}

/** A fresh record from validated write arguments; actor and owner come from the subject only. */
export function newRecord(a: StoreArgs, subject: Subject, now: Date, fields: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id: randomUUID(),
    short_id: "",
    content: a.content ?? "",
    scope: a.scope ?? "",
    repo: a.repo ?? "",
    workspace: a.workspace ?? "",
    worktree_path: a.worktree ?? "",
    base_dir: a.base_dir ?? "",
    source: a.source ?? "",
    category: a.category ?? "",
    tags: uniqueTags(a.tags) ?? [],
    actor: subject.actor,
    owner: subject.owner,
    visibility: "",
    created_at: now.toISOString(),
    summary: a.summary ?? "",
    summary_source: a.summary ? "client" : "",
    summary_model: "",
    access_count: 0,
    kind: "",
    citations: normalizeCitations(a.citations),
    supersedes: [],
    ...fields,
  };
}
