import { createRegistry, toBinary, type DescFile, type Registry } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

/**
 * The proto files a server describes, with everything they import, looked
 * up the ways the reflection protocol asks: by file name, by a fully
 * qualified symbol, by extension.
 */
export class DescriptorIndex {
  private readonly files = new Map<string, DescFile>();
  private readonly registry: Registry;
  private readonly encoded = new Map<string, Uint8Array>();

  constructor(roots: readonly DescFile[]) {
    const visit = (f: DescFile): void => {
      // DescFile.name drops ".proto"; reflection speaks the full file name.
      if (this.files.has(f.proto.name)) return;
      this.files.set(f.proto.name, f);
      f.dependencies.forEach(visit);
    };
    roots.forEach(visit);
    this.registry = createRegistry(...this.files.values());
  }

  /** Fully qualified names of every service, sorted. */
  serviceNames(): string[] {
    const names: string[] = [];
    for (const d of this.registry) if (d.kind === "service") names.push(d.typeName);
    return names.sort();
  }

  fileByName(name: string): DescFile | undefined {
    return this.files.get(name);
  }

  /**
   * The file declaring a symbol. A method, field, enum value or oneof is
   * named below its parent ("engram.v1.EngramService.<Method>"), so
   * trailing components are dropped until a type is found.
   */
  fileOfSymbol(symbol: string): DescFile | undefined {
    let name = symbol.startsWith(".") ? symbol.slice(1) : symbol;
    while (name.length > 0) {
      const d = this.registry.get(name);
      if (d) return d.file;
      const dot = name.lastIndexOf(".");
      if (dot < 0) return undefined;
      name = name.slice(0, dot);
    }
    return undefined;
  }

  fileOfExtension(extendee: string, no: number): DescFile | undefined {
    const message = this.registry.getMessage(extendee);
    return message ? this.registry.getExtensionFor(message, no)?.file : undefined;
  }

  /** The extension numbers known for a message type; undefined when the type is unknown. */
  extensionNumbers(extendee: string): number[] | undefined {
    if (!this.registry.getMessage(extendee)) return undefined;
    const numbers: number[] = [];
    for (const d of this.registry) if (d.kind === "extension" && d.extendee.typeName === extendee) numbers.push(d.number);
    return numbers.sort((a, b) => a - b);
  }

  /**
   * A file and its transitive imports, imports first, leaving out those in
   * `sent` (what this stream already delivered), which it extends.
   */
  closure(file: DescFile, sent: Set<string>): Uint8Array[] {
    const out: Uint8Array[] = [];
    const visit = (f: DescFile): void => {
      if (sent.has(f.proto.name)) return;
      sent.add(f.proto.name);
      f.dependencies.forEach(visit);
      out.push(this.encode(f));
    };
    // The requested file is always answered, even when sent before: the client asked for it by name.
    sent.delete(file.proto.name);
    visit(file);
    return out;
  }

  private encode(f: DescFile): Uint8Array {
    let bytes = this.encoded.get(f.proto.name);
    if (!bytes) {
      bytes = toBinary(FileDescriptorProtoSchema, f.proto);
      this.encoded.set(f.proto.name, bytes);
    }
    return bytes;
  }
}
