import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../..", import.meta.url).pathname;

/** One server entry as a client would read it from docs/mcp-clients.md. */
export type DocumentedServer =
  | { section: string; source: string; kind: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { section: string; source: string; kind: "http"; url: string; headers: Record<string, string> };

/** The token placeholders the doc uses, each standing for the caller's bearer token. */
export const TOKEN_PLACEHOLDERS = ["<your-token>", "${ENGRAM_TOKEN}", "${input:engram-token}"] as const;
export const DOC_URL = "http://127.0.0.1:8080/mcp";

type Entry = { command?: string; args?: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> };

/** Splits a one-line shell command the way sh would for the quoting the doc uses (double quotes only). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] ?? m[2]!);
  return words;
}

/** A `claude mcp add …` line as the server entry it creates. */
function fromClaudeMcpAdd(section: string, line: string): DocumentedServer {
  const words = shellWords(line);
  const dashdash = words.indexOf("--");
  const flags = dashdash < 0 ? words : words.slice(0, dashdash);
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const positional: string[] = [];
  let transport = "stdio";
  for (let i = 3; i < flags.length; i++) {
    const w = flags[i]!;
    if (w === "--env" || w === "-e") {
      const [k, ...v] = flags[++i]!.split("=");
      env[k!] = v.join("=");
    } else if (w === "--header" || w === "-H") {
      const h = flags[++i]!;
      const colon = h.indexOf(":");
      headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
    } else if (w === "--transport" || w === "-t") transport = flags[++i]!;
    else if (w === "--scope" || w === "-s") i++;
    else positional.push(w);
  }
  if (transport === "http") return { section, source: line, kind: "http", url: positional[1]!, headers };
  const [command, ...args] = words.slice(dashdash + 1);
  return { section, source: line, kind: "stdio", command: command!, args, env };
}

/** Every JSON config block and every `claude mcp add` line in docs/mcp-clients.md, in order. */
export function documentedServers(): DocumentedServer[] {
  const doc = readFileSync(join(ROOT, "docs/mcp-clients.md"), "utf8");
  const out: DocumentedServer[] = [];
  let section = "";
  const blocks = /^## (.+)$|^```(json|sh)\n([\s\S]*?)^```$/gm;
  for (let m = blocks.exec(doc); m; m = blocks.exec(doc)) {
    if (m[1] !== undefined) {
      section = m[1];
      continue;
    }
    const body = m[3]!;
    if (m[2] === "sh") {
      for (const line of body.split("\n")) if (line.startsWith("claude mcp add ")) out.push(fromClaudeMcpAdd(section, line));
      continue;
    }
    const config = JSON.parse(body) as { mcpServers?: Record<string, Entry>; servers?: Record<string, Entry> };
    const entry = (config.mcpServers ?? config.servers)?.engram;
    if (!entry) throw new Error(`a JSON block under "${section}" has no engram server`);
    if (entry.url !== undefined) out.push({ section, source: body, kind: "http", url: entry.url, headers: entry.headers ?? {} });
    else out.push({ section, source: body, kind: "stdio", command: entry.command!, args: entry.args ?? [], env: entry.env ?? {} });
  }
  return out;
}

/** The documented value with the token and the test server's address put in. */
export function substitute(value: string, token: string, mcpUrl: string): string {
  let v = value.split(DOC_URL).join(mcpUrl);
  for (const p of TOKEN_PLACEHOLDERS) v = v.split(p).join(token);
  return v;
}
