/**
 * An error the fake answers with, in Qdrant's own wording and HTTP status. Handlers throw it; the
 * server turns it into the `{"status":{"error":…},"time":…}` envelope.
 */
export class FakeQdrantError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "FakeQdrantError";
  }
}

// Qdrant prefixes each message with the class of error (see its `StorageError` Display impls).
export const badRequest = (detail: string): FakeQdrantError => new FakeQdrantError(400, `Bad request: ${detail}`);
export const wrongInput = (detail: string): FakeQdrantError => new FakeQdrantError(400, `Wrong input: ${detail}`);
export const notFound = (detail: string): FakeQdrantError => new FakeQdrantError(404, `Not found: ${detail}`);

export const collectionNotFound = (name: string): FakeQdrantError =>
  notFound(`Collection \`${name}\` doesn't exist!`);

export const collectionExists = (name: string): FakeQdrantError =>
  new FakeQdrantError(409, `Wrong input: Collection \`${name}\` already exists!`);

export const pointNotFound = (id: string | number): FakeQdrantError => notFound(`No point with id ${id} found`);
