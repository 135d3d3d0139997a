import { createContextKey, type ContextValues, type Interceptor } from "@connectrpc/connect";

/**
 * Whether the library's decode of a request let the call reach its method.
 * The library decodes before any interceptor runs and answers a body it
 * cannot decode by itself, in its own words (which may quote the caller's
 * value); it offers no hook around that decode. An interceptor, though, runs
 * exactly when the decode succeeded, so a call that ended without reaching
 * one was refused by the decode (decode-once.ts then answers it anew).
 */
export type DecodeWatch = { reached: boolean };

const kWatch = createContextKey<DecodeWatch | undefined>(undefined, { description: "engram decode reached the method" });

/** A fresh watch on the request's values, replacing any earlier one (a call handed to the library again). */
export function watchDecode(values: ContextValues): DecodeWatch {
  const watch: DecodeWatch = { reached: false };
  values.set(kWatch, watch);
  return watch;
}

export const decodeWatchInterceptor: Interceptor = (next) => (req) => {
  const watch = req.contextValues.get(kWatch);
  if (watch !== undefined) watch.reached = true;
  return next(req);
};
