#!/usr/bin/env node
// The engram CLI runs its TypeScript source directly through tsx, so the
// installed bin and `npm start` execute exactly what the tests execute.
import { register } from "tsx/esm/api";

register();
await import("../cmd/engram.ts");
