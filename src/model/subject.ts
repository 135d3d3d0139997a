/**
 * Who is calling. `owner` is the authorization key stamped on records the
 * caller writes; `anonymous` is true only when the server runs without any
 * configured tokens, in which case everyone shares owner "".
 */
export type Subject = {
  readonly owner: string;
  readonly actor: string;
  readonly anonymous: boolean;
};

export const ANONYMOUS: Subject = Object.freeze({ owner: "", actor: "", anonymous: true });

export function ownerSubject(owner: string): Subject {
  return Object.freeze({ owner, actor: owner, anonymous: false });
}
