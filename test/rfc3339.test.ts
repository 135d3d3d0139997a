import { describe, expect, it } from "vitest";
import { readRfc3339 } from "../src/core/index.js";

describe("an RFC3339 instant as every lane reads it", () => {
  it.each([
    ["2030-01-01T00:00:00Z", Date.UTC(2030, 0, 1) / 1000, 0],
    ["2030-01-01T05:30:00+05:30", Date.UTC(2030, 0, 1) / 1000, 0],
    ["2029-12-31T23:00:00-01:00", Date.UTC(2030, 0, 1) / 1000, 0],
    ["2028-02-29T12:00:00.5Z", Date.UTC(2028, 1, 29, 12) / 1000, 500_000_000],
    ["2030-01-01T00:00:00.000000001Z", Date.UTC(2030, 0, 1) / 1000, 1],
    ["0001-01-01T00:00:00Z", -62135596800, 0],
  ])("reads %s to the second and the nanosecond", (text, seconds, nanos) => {
    expect(readRfc3339(text)).toMatchObject({ seconds, nanos });
  });

  it.each([
    ["a day the month does not have", "2030-02-30T00:00:00Z"],
    ["February 29 of a common year", "2030-02-29T00:00:00Z"],
    ["hour 24", "2030-01-01T24:00:00Z"],
    ["minute 60", "2030-01-01T00:60:00Z"],
    ["month 13", "2030-13-01T00:00:00Z"],
    ["year 0", "0000-01-01T00:00:00Z"],
    ["an offset of 24 hours", "2030-01-01T00:00:00+24:00"],
    ["lower-case t and z, which the proto JSON mapping refuses", "2030-01-01t00:00:00z"],
    ["ten fraction digits", "2030-01-01T00:00:00.1234567891Z"],
    ["no zone", "2030-01-01T00:00:00"],
    ["a date alone", "2030-01-01"],
  ])("refuses %s, rather than rolling it over to another instant", (_what, text) => {
    expect(readRfc3339(text)).toBeUndefined();
  });
});
