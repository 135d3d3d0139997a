import { ANONYMOUS, ownerSubject, type Subject } from "../model/subject.js";

export const MCP_OWNER_ENV = "ENGRAM_MCP_OWNER";

/**
 * Who a local stdio session acts as. There is no bearer token on a pipe: the
 * operator who starts `engram mcp` names the owner, or the session is
 * anonymous (owner "").
 */
export function stdioSubject(env: NodeJS.ProcessEnv = process.env): Subject {
  const owner = env[MCP_OWNER_ENV];
  return owner === undefined || owner === "" ? ANONYMOUS : ownerSubject(owner);
}
