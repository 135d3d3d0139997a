import type { QdrantClient } from "@qdrant/js-client-rest";
import { ResponseTooLargeError } from "../../argerror/index.js";
import type { MemoryRecord } from "../../model/record.js";
import { DENSE_VECTOR, MAX_PAGE } from "./layout.js";
import { decodePayload, type Payload } from "./point-payload.js";
import { mapQdrantError, type QdrantAccess } from "./qdrant-fault.js";
import type { QFilter } from "./record-query-filter.js";

export type Point = { id: string | number; payload?: Payload | null; vector?: unknown; score?: number };
export type View = "full" | "keys" | "tags";

/**
 * The collection behind the alias as the Qdrant store's parts reach it:
 * every client call through the one fault mapping, and point reads kept
 * within the response budget.
 */
export class QdrantPoints {
  constructor(
    readonly client: QdrantClient,
    readonly alias: string,
    private readonly budget: number,
    private readonly ceilings: Record<View, number>,
  ) {}

  /** Every client call goes through here, so transport and storage faults map to the vocabulary in one place. */
  async call<T>(access: QdrantAccess, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mapQdrantError(err, access);
    }
  }

  /** Points per request for a view: as many as fit the byte budget at the view's per-record ceiling. */
  pageSize(view: View): number {
    return Math.min(MAX_PAGE, Math.max(1, Math.floor(this.budget / this.ceilings[view])));
  }

  async retrieve(ids: readonly string[], withVector = false): Promise<Point[]> {
    if (ids.length === 0) return [];
    return (await this.call("read", () =>
      this.client.retrieve(this.alias, { ids: [...ids], with_payload: true, with_vector: withVector ? [DENSE_VECTOR] : false }),
    )) as Point[];
  }

  /**
   * Full records by id, in the order asked, in batches sized by the budget.
   * A batch that comes back over budget is read again one by one; one record
   * over budget by itself is `response_too_large`, never cut short.
   */
  async fullRecords(ids: readonly string[]): Promise<MemoryRecord[]> {
    const size = this.pageSize("full");
    const byId = new Map<string, MemoryRecord>();
    for (let i = 0; i < ids.length; i += size) {
      const part = ids.slice(i, i + size);
      let points = await this.retrieve(part);
      if (points.length > 1 && this.bytesOf(points) > this.budget) {
        points = (await Promise.all(part.map((id) => this.retrieve([id])))).flat();
      }
      for (const p of points) {
        if (this.bytesOf([p]) > this.budget) throw new ResponseTooLargeError("one record exceeds the read budget");
        byId.set(String(p.id), decodePayload(p.payload ?? {}));
      }
    }
    return ids.map((id) => byId.get(id)).filter((r): r is MemoryRecord => r !== undefined);
  }

  private bytesOf(points: readonly Point[]): number {
    return Buffer.byteLength(JSON.stringify(points), "utf8");
  }

  /** Every point matching a filter, the given payload keys only, page by page. */
  async scrollKeys(filter: QFilter | undefined, keys: readonly string[], view: View, visit: (p: Point) => void): Promise<void> {
    let offset: string | number | undefined;
    for (;;) {
      const page = await this.call("read", () =>
        this.client.scroll(this.alias, { filter, limit: this.pageSize(view), with_payload: [...keys], with_vector: false, ...(offset === undefined ? {} : { offset }) }),
      );
      for (const p of page.points) visit(p as Point);
      const next = page.next_page_offset;
      if (next === undefined || next === null || typeof next === "object") return;
      offset = next as string | number;
    }
  }

  /** The stored revision of a point, null when it has none, undefined when the point is gone. */
  async storedState(id: string): Promise<Payload | undefined> {
    const [p] = await this.retrieve([id]);
    return p ? (p.payload ?? {}) : undefined;
  }
}
