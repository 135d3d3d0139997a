import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { dataDirOf, defaultDataDir } from "../src/data-dir.js";
import { listenAddrOf } from "../src/listen-config.js";

describe("the data directory", () => {
  it("defaults to $XDG_DATA_HOME/engram, wherever the process was started", () => {
    expect(dataDirOf({ XDG_DATA_HOME: "/srv/xdg", HOME: "/home/ada" })).toBe("/srv/xdg/engram");
  });

  it("falls back to ~/.local/share/engram when XDG_DATA_HOME is unset or relative", () => {
    expect(dataDirOf({ HOME: "/home/ada" })).toBe("/home/ada/.local/share/engram");
    expect(defaultDataDir({ HOME: "/home/ada", XDG_DATA_HOME: "rel/dir" })).toBe("/home/ada/.local/share/engram");
  });

  it("lets ENGRAM_DATA_DIR override it, resolved to an absolute path", () => {
    expect(dataDirOf({ ENGRAM_DATA_DIR: "/var/lib/engram", XDG_DATA_HOME: "/srv/xdg" })).toBe("/var/lib/engram");
    expect(dataDirOf({ ENGRAM_DATA_DIR: "here/.engram" })).toBe(resolve("here/.engram"));
    expect(dataDirOf({ ENGRAM_DATA_DIR: ":memory:" })).toBe(":memory:");
  });

  it("treats an empty or blank ENGRAM_DATA_DIR as unset, never as a directory named by spaces", () => {
    expect(dataDirOf({ ENGRAM_DATA_DIR: "", HOME: "/home/ada" })).toBe(join("/home/ada", ".local/share/engram"));
    expect(dataDirOf({ ENGRAM_DATA_DIR: "   ", HOME: "/home/ada" })).toBe(join("/home/ada", ".local/share/engram"));
  });
});

describe("the listen address", () => {
  it("is the flag, else ENGRAM_LISTEN_ADDR, else 127.0.0.1:8080, a blank setting counting as unset", () => {
    expect(listenAddrOf({ ENGRAM_LISTEN_ADDR: "0.0.0.0:9000" }, "[::1]:8081")).toBe("[::1]:8081");
    expect(listenAddrOf({ ENGRAM_LISTEN_ADDR: "0.0.0.0:9000" })).toBe("0.0.0.0:9000");
    expect(listenAddrOf({ ENGRAM_LISTEN_ADDR: "  " })).toBe("127.0.0.1:8080");
    expect(listenAddrOf({})).toBe("127.0.0.1:8080");
  });
});
