import type { BuildOptions } from "esbuild";

export declare const EXTERNAL: string[];
export declare function bundleOptions(entryPoints: Record<string, string>, outdir: string): BuildOptions;
export declare function buildDist(dist?: string, opts?: { force?: boolean }): Promise<boolean>;
export declare function fingerprint(): string;
