import { FakeCollection } from "./collection.js";
import { badRequest, collectionExists, collectionNotFound, notFound } from "./fake-error.js";

type Json = Record<string, unknown>;

/** Everything one fake Qdrant node holds: collections, aliases, snapshot records. */
export class FakeState {
  readonly collections = new Map<string, FakeCollection>();
  readonly aliases = new Map<string, string>();
  readonly snapshots = new Map<string, Json[]>();
  private operationId = 0;

  nextOperationId(): number {
    this.operationId += 1;
    return this.operationId;
  }

  /** Points and collection reads accept an alias wherever a collection name goes. */
  resolve(name: string): FakeCollection {
    const c = this.collections.get(this.aliases.get(name) ?? name);
    if (!c) throw collectionNotFound(name);
    return c;
  }

  create(name: string, body: Json): void {
    if (this.collections.has(name)) throw collectionExists(name);
    if (this.aliases.has(name)) throw badRequest(`Alias with name \`${name}\` already exists`);
    this.collections.set(name, new FakeCollection(name, body));
  }

  /** Deleting a collection drops the aliases pointing at it, as Qdrant does. */
  drop(name: string): boolean {
    if (!this.collections.delete(name)) return false;
    for (const [alias, target] of this.aliases) if (target === name) this.aliases.delete(alias);
    this.snapshots.delete(name);
    return true;
  }

  /**
   * All alias actions of one request apply together or not at all: validated against a copy,
   * then swapped in, so a reader never sees the alias missing mid-switch.
   */
  changeAliases(actions: Json[]): void {
    const next = new Map(this.aliases);
    for (const action of actions) {
      if (action.create_alias) {
        const { collection_name, alias_name } = action.create_alias as { collection_name: string; alias_name: string };
        if (!this.collections.has(collection_name)) throw collectionNotFound(collection_name);
        if (this.collections.has(alias_name)) throw badRequest(`Collection with name \`${alias_name}\` already exists`);
        next.set(alias_name, collection_name);
      } else if (action.delete_alias) {
        const { alias_name } = action.delete_alias as { alias_name: string };
        if (!next.delete(alias_name)) throw notFound(`Alias ${alias_name} does not exists!`);
      } else if (action.rename_alias) {
        const { old_alias_name, new_alias_name } = action.rename_alias as { old_alias_name: string; new_alias_name: string };
        const target = next.get(old_alias_name);
        if (target === undefined) throw notFound(`Alias ${old_alias_name} does not exists!`);
        next.delete(old_alias_name);
        next.set(new_alias_name, target);
      }
    }
    this.aliases.clear();
    for (const [k, v] of next) this.aliases.set(k, v);
  }
}
