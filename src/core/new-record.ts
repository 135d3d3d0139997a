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

/** Nothing left over: a write argument `newRecord` does not take apart fails to compile. */
type NoneLeft<T> = { readonly [F in keyof T]-?: never };

/** A fresh record from validated write arguments; actor and owner come from the subject only. */
export function newRecord(a: StoreArgs, subject: Subject, now: Date, fields: Partial<MemoryRecord> = {}): MemoryRecord {
  // Every write argument is named here, so a new one is placed in the record
  // (or declared as not stored) before anything compiles. The idempotency key
  // picks the record's id in write-record.ts; it is not a field of the record.
  const { content, scope, repo, workspace, worktree, base_dir, source, category, tags, summary, citations, idempotency_key: _idempotencyKey, ...rest } = a;
  const noneLeft: NoneLeft<typeof rest> = rest;
  void noneLeft;
  return {
    id: randomUUID(),
    short_id: "",
    content: content ?? "",
    scope: scope ?? "",
    repo: repo ?? "",
    workspace: workspace ?? "",
    worktree_path: worktree ?? "",
    base_dir: base_dir ?? "",
    source: source ?? "",
    category: category ?? "",
    tags: uniqueTags(tags) ?? [],
    actor: subject.actor,
    owner: subject.owner,
    visibility: "",
    created_at: now.toISOString(),
    summary: summary ?? "",
    summary_source: summary ? "client" : "",
    summary_model: "",
    access_count: 0,
    kind: "",
    citations: normalizeCitations(citations),
    supersedes: [],
    ...fields,
  };
}
