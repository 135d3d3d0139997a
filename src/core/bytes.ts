export function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}
