/**
 * The served side of one size: `node bin/engram.js serve` spawned over the
 * grown data directory (its index snapshot saved, as a clean stop leaves
 * it), timed from spawn until /healthz answers 200 and until /readyz does;
 * its resident memory once ready, and again after SEARCHES SearchMemories
 * calls through Connect (the server embeds each query, half of them in one
 * scope and half cross-spine), read from /proc by the child's pid.
 */
import { readFileSync } from "node:fs";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { EngramService } from "../../src/gen/engram/v1/engram_pb.js";
import { mulberry32 } from "../../test/helpers/synthetic-vectors.js";
import { spawnServe } from "../serve-child.js";
import { sentence } from "./records.js";

export const SEARCHES = 1000;

export type ServeFigures = { healthzMs: number; readyzMs: number; rssStartB: number; rssSearchedB: number; peakB: number };

/** A field of /proc/<pid>/status in bytes (VmRSS: resident now; VmHWM: the most it has been). */
function procBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(line.split(/\s+/)[1]) * 1024;
}

export async function probeServe(dir: string, scopes: number): Promise<ServeFigures> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  const { child, url, until, stop } = await spawnServe(dir, env, 10);
  try {
    const healthzMs = await until("/healthz", 600_000);
    const readyzMs = await until("/readyz", 3_600_000);
    const rssStartB = procBytes(child.pid!, "VmRSS");
    const engram = createClient(EngramService, createConnectTransport({ baseUrl: url, httpVersion: "1.1" }));
    const rand = mulberry32(31337);
    for (let i = 0; i < SEARCHES; i++) {
      const query = sentence(rand, 4);
      await engram.searchMemories(i % 2 === 0 ? { query, scope: `repo:growth-${i % scopes}`, k: 8n } : { query, crossSpine: true, k: 8n });
    }
    return { healthzMs, readyzMs, rssStartB, rssSearchedB: procBytes(child.pid!, "VmRSS"), peakB: procBytes(child.pid!, "VmHWM") };
  } finally {
    await stop();
  }
}
