import { traced, type SpanNotes } from "../model/trace-hook.js";
import type { MemoryRecord, ScoredRecord } from "../model/record.js";
import type { Subject } from "../model/subject.js";
import type { EarlyCandidates, ImportRow, ListPage, Neighbour, QueryVector, RecordQuery, ResolveResult, SchemaHistogram, Store, StorePart } from "./store.js";

/**
 * A Store that runs each read and write of another in a span of its own
 * (`engram.store.<method>`), with the backend's kind and counts of what came
 * back: never a query's text, an id or a record. Wrapped around the serving
 * store only while tracing is on, so a server without tracing calls its
 * store directly. Access counting (noteAccess) is synchronous bookkeeping
 * and passes straight through.
 */
export class TracedStore implements Store {
  readonly kind: Store["kind"];
  readonly readiness?: () => StorePart[];

  constructor(private readonly inner: Store) {
    this.kind = inner.kind;
    if (inner.readiness) this.readiness = () => inner.readiness!();
  }

  private span<T>(method: string, fn: () => Promise<T>, counted?: (result: T, notes: SpanNotes) => void): Promise<T> {
    return traced(
      `engram.store.${method}`,
      async (notes) => {
        const result = await fn();
        counted?.(result, notes);
        return result;
      },
      { attributes: { "engram.store.kind": this.kind, "db.operation.name": method } },
    );
  }

  close(): Promise<void> {
    return this.inner.close();
  }
  warm(): Promise<void> {
    return this.inner.warm();
  }
  getRaw(id: string): Promise<MemoryRecord | undefined> {
    return this.span("getRaw", () => this.inner.getRaw(id), found);
  }
  resolve(input: string): Promise<ResolveResult> {
    return this.span("resolve", () => this.inner.resolve(input), (r, n) => n.set("engram.store.resolved", r.kind));
  }
  getReadable(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    return this.span("getReadable", () => this.inner.getReadable(id, subject), found);
  }
  getOwned(id: string, subject: Subject): Promise<MemoryRecord | undefined> {
    return this.span("getOwned", () => this.inner.getOwned(id, subject), found);
  }
  countShortId(shortId: string): Promise<number> {
    return this.span("countShortId", () => this.inner.countShortId(shortId));
  }
  create(record: MemoryRecord, vector: Float32Array): Promise<boolean> {
    return this.span("create", () => this.inner.create(record, vector), (created, n) => n.set("engram.store.created", created));
  }
  replace(record: MemoryRecord, vector?: Float32Array): Promise<void> {
    return this.span("replace", () => this.inner.replace(record, vector));
  }
  supersede(record: MemoryRecord, vector: Float32Array, targetIds: readonly string[], subject: Subject): Promise<void> {
    return this.span("supersede", () => this.inner.supersede(record, vector, targetIds, subject));
  }
  importBatch(rows: readonly ImportRow[]): Promise<void> {
    return this.span("importBatch", () => this.inner.importBatch(rows));
  }
  delete(id: string): Promise<boolean> {
    return this.span("delete", () => this.inner.delete(id));
  }
  deleteOwnedInScope(scope: string, subject: Subject): Promise<number> {
    return this.span("deleteOwnedInScope", () => this.inner.deleteOwnedInScope(scope, subject), records);
  }
  deleteMany(ids: readonly string[]): Promise<number> {
    return this.span("deleteMany", () => this.inner.deleteMany(ids), records);
  }
  list(query: RecordQuery, page: ListPage): Promise<{ records: MemoryRecord[]; total: number }> {
    return this.span("list", () => this.inner.list(query, page), (r, n) => n.set("engram.store.records", r.records.length));
  }
  count(query: RecordQuery): Promise<number> {
    return this.span("count", () => this.inner.count(query), records);
  }
  search(query: RecordQuery, vector: QueryVector, text: string, candidates: number, early?: EarlyCandidates): Promise<ScoredRecord[]> {
    return this.span("search", () => this.inner.search(query, vector, text, candidates, early), (r, n) => {
      n.set("engram.store.candidates_asked", candidates);
      n.set("engram.store.records", r.length);
      if (query.onlyGated) n.set("engram.store.only_gated", true);
    });
  }
  termWeights(terms: readonly string[]): Promise<Map<string, number>> {
    return this.span("termWeights", () => this.inner.termWeights(terms), (r, n) => {
      n.set("engram.store.terms", terms.length);
      n.set("engram.store.records", r.size);
    });
  }
  termRecordCount(): Promise<number> {
    return this.span("termRecordCount", () => this.inner.termRecordCount(), (r, n) => n.set("engram.store.records", r));
  }
  tagCounts(query: RecordQuery): Promise<Map<string, number>> {
    return this.span("tagCounts", () => this.inner.tagCounts(query), (r, n) => n.set("engram.store.records", r.size));
  }
  scopeCounts(subject: Subject): Promise<{ scopes: { scope: string; count: number }[]; approximate: boolean }> {
    return this.span("scopeCounts", () => this.inner.scopeCounts(subject), (r, n) => n.set("engram.store.records", r.scopes.length));
  }
  vectorOf(id: string): Promise<Float32Array | undefined> {
    return this.span("vectorOf", () => this.inner.vectorOf(id), found);
  }
  neighbours(ids: readonly string[], k: number, query: RecordQuery): Promise<Map<string, Neighbour[]>> {
    return this.span("neighbours", () => this.inner.neighbours(ids, k, query), (r, n) => n.set("engram.store.records", r.size));
  }
  noteAccess(id: string, at: string): void {
    this.inner.noteAccess(id, at);
  }
  flushAccess(): Promise<void> {
    return this.span("flushAccess", () => this.inner.flushAccess());
  }
  schemaHistogram(): Promise<SchemaHistogram> {
    return this.span("schemaHistogram", () => this.inner.schemaHistogram());
  }
  getMeta(key: string): Promise<string | undefined> {
    return this.span("getMeta", () => this.inner.getMeta(key));
  }
  setMeta(key: string, value: string): Promise<void> {
    return this.span("setMeta", () => this.inner.setMeta(key, value));
  }
}

function found(r: unknown, n: SpanNotes): void {
  n.set("engram.store.found", r !== undefined);
}

function records(r: number, n: SpanNotes): void {
  n.set("engram.store.records", r);
}
