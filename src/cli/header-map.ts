/**
 * Node 20 builds its global `Headers` by loading its whole fetch
 * implementation on first use, which costs a client verb about a sixth of
 * its run. The one RPC a verb makes needs only a case-insensitive map of
 * header fields, so the CLI puts this one in its place before the Connect
 * transport first asks for `Headers`. Names and values are checked by
 * node:http when the request is written; the token is checked before that
 * (client-flags.ts), so no header value reaches an error line.
 *
 * Hand-written, by measurement: headers-polyfill 5.0.1 works only once it
 * is the global itself (its constructor checks `instanceof
 * globalThis.Headers`, which would load Node's fetch), and installed that
 * way it made the whole `engram get` 5% slower than this map (136 against
 * 129 ms, medians of 25 runs taken alternately).
 */

type Init = HeaderMap | Iterable<readonly [string, string]> | Record<string, string | readonly string[]>;

export class HeaderMap {
  /** Lower-case name → value, several values joined with ", " as fetch's Headers joins them. */
  private readonly fields = new Map<string, string>();

  constructor(init?: Init) {
    if (init === undefined || init === null) return;
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === "function") {
      for (const [name, value] of init as Iterable<readonly [string, string]>) this.append(name, value);
      return;
    }
    for (const [name, value] of Object.entries(init as Record<string, string | readonly string[]>)) {
      if (Array.isArray(value)) for (const v of value as readonly string[]) this.append(name, v);
      else this.append(name, value as string);
    }
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const v = String(value).trim();
    const had = this.fields.get(key);
    this.fields.set(key, had === undefined ? v : `${had}, ${v}`);
  }

  set(name: string, value: string): void {
    this.fields.set(name.toLowerCase(), String(value).trim());
  }

  get(name: string): string | null {
    return this.fields.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.fields.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.fields.delete(name.toLowerCase());
  }

  forEach(fn: (value: string, name: string, map: HeaderMap) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) fn.call(thisArg, value, name, this);
  }

  /** Sorted by name, as fetch's Headers iterates. */
  *entries(): IterableIterator<[string, string]> {
    yield* [...this.fields.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  getSetCookie(): string[] {
    const v = this.fields.get("set-cookie");
    return v === undefined ? [] : [v];
  }
}

/**
 * Puts HeaderMap in place of the global `Headers` if nothing in this
 * process has used the global yet (it is still Node's lazy getter); once
 * something has, that one stays, so two kinds never meet in one process.
 */
export function installHeaderMap(): void {
  const d = Object.getOwnPropertyDescriptor(globalThis, "Headers");
  if (d !== undefined && !("get" in d && d.get !== undefined)) return;
  Object.defineProperty(globalThis, "Headers", { value: HeaderMap, writable: true, configurable: true, enumerable: false });
}
