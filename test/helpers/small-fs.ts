import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real, small file system for storage-fault tests: an 8 MiB tmpfs. It needs
 * root (or CAP_SYS_ADMIN); `mountSmallFs` says why when it cannot, so the
 * test can skip with that reason instead of pretending.
 */
export type SmallFs = { dir: string; unmount(): void };

export function mountSmallFs(sizeMiB = 8): SmallFs | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "engram-smallfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMiB}m`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a ${sizeMiB} MiB tmpfs here (needs root): ${(err as Error).message.split("\n")[0]}` };
  }
  return {
    dir,
    unmount() {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Bind-mounts `source` read-only at a new directory; undefined with the reason when the machine will not. */
export function bindReadOnly(source: string): { dir: string; unmount(): void } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "engram-robind-"));
  try {
    execFileSync("mount", ["--bind", source, dir], { stdio: "pipe" });
    execFileSync("mount", ["-o", "remount,bind,ro", dir], { stdio: "pipe" });
  } catch (err) {
    try {
      execFileSync("umount", [dir], { stdio: "pipe" });
    } catch {
      // never mounted
    }
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot make a read-only bind mount here (needs root): ${(err as Error).message.split("\n")[0]}` };
  }
  return {
    dir,
    unmount() {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes zeros to `file` until the file system says ENOSPC; returns the bytes written. */
export function fillDisk(file: string): number {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) {
      try {
        written += writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
        // The last partial block: fill byte by byte-sized chunks until nothing fits.
        for (const size of [4096, 512, 1]) {
          for (;;) {
            try {
              written += writeSync(fd, chunk.subarray(0, size));
            } catch {
              break;
            }
          }
        }
        return written;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Bind-mounts `source` read-write at a new directory, to be flipped read-only later with `remountBind`. */
export function bindWritable(source: string): { dir: string; unmount(): void } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "engram-rwbind-"));
  try {
    execFileSync("mount", ["--bind", source, dir], { stdio: "pipe" });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot bind-mount here (needs root): ${(err as Error).message.split("\n")[0]}` };
  }
  return {
    dir,
    unmount() {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Flips a bind mount read-only or back; the failure text (e.g. "mount point is busy") when the kernel refuses. */
export function remountBind(dir: string, readOnly: boolean): string | undefined {
  try {
    execFileSync("mount", ["-o", `remount,bind,${readOnly ? "ro" : "rw"}`, dir], { stdio: "pipe" });
    return undefined;
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    return (e.stderr?.toString() || e.message).split("\n")[0]!.trim();
  }
}
