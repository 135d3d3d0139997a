import { ANONYMOUS, ownerSubject, type Subject } from "../model/subject.js";
import { ownerShapeProblem } from "./owner-shape.js";

export const MCP_OWNER_ENV = "ENGRAM_MCP_OWNER";

/**
 * Who a local stdio session acts as. There is no bearer token on a pipe: the
 * operator who starts `engram mcp` names the owner, or the session is
 * anonymous (owner "").
 */
export function stdioSubject(env: NodeJS.ProcessEnv = process.env): Subject {
  const owner = env[MCP_OWNER_ENV];
  if (owner === undefined || owner === "") return ANONYMOUS;
  // The rules a static token's owner follows, so a stdio session can share records with one by name and with no OIDC owner by accident.
  const problem = ownerShapeProblem(owner);
  if (problem === "whitespace") throw new Error(`${MCP_OWNER_ENV} has whitespace or control characters`);
  if (problem === "namespaced") throw new Error(`${MCP_OWNER_ENV} is in the <length>:<claim>: form the OIDC lanes use`);
  return ownerSubject(owner);
}
