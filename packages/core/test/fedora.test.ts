// The Fedora end-of-life table: which release an AMI name filter names, and whether it is past its end of life
// on a date passed in (never the clock).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FEDORA_EOL } from "../src/facts/fedora.js";
import { FEDORA_EOL_AS_OF, fedoraPastEol, fedoraReleaseOf } from "../src/index.js";

describe("Fedora releases in AMI name filters", () => {
  it("reads the release, not the architecture", () => {
    expect(fedoraReleaseOf("Fedora-Cloud-Base-AmazonEC2.aarch64-43-*")).toBe(43);
    expect(fedoraReleaseOf("Fedora-Cloud-Base-AmazonEC2.x86_64-41-20250101.0")).toBe(41);
    expect(fedoraReleaseOf("Fedora-Cloud-Base-39-1.5.x86_64-hvm-us-east-1-gp3-0")).toBe(39);
    // a two-digit compose minor is not a second release
    expect(fedoraReleaseOf("Fedora-Cloud-Base-40-1.14.x86_64-hvm-us-east-1-gp3-0")).toBe(40);
    expect(fedoraReleaseOf("Fedora-Cloud-Base-AmazonEC2.x86_64-42-1.11")).toBe(42);
    expect(fedoraReleaseOf("Fedora-Cloud-Base-AmazonEC2.aarch64-*")).toBeUndefined();
    expect(fedoraReleaseOf("al2023-ami-2023.6-x86_64")).toBeUndefined();
    expect(fedoraReleaseOf("Fedora-Cloud-Base-4?-*")).toBeUndefined();
  });

  it("finds any release back in a generated name", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 30, max: 99 }),
        fc.constantFrom("x86_64", "aarch64"),
        fc.constantFrom("*", "20250101.0", "1.5"),
        (release, arch, tail) => {
          expect(fedoraReleaseOf(`Fedora-Cloud-Base-AmazonEC2.${arch}-${release}-${tail}`)).toBe(release);
        },
      ),
    );
  });
});

describe("Fedora end of life", () => {
  it("is a dated table in release order", () => {
    expect(FEDORA_EOL.map((r) => r.release)).toEqual([37, 38, 39, 40, 41, 42]);
    for (const [a, b] of FEDORA_EOL.slice(1).map((r, i) => [FEDORA_EOL[i], r] as const))
      expect(a && b && a.eol < b.eol).toBe(true);
    expect(FEDORA_EOL.every((r) => r.eol <= FEDORA_EOL_AS_OF)).toBe(true);
  });

  it("flags a release exactly when its end of life is on or before the date passed in", () => {
    expect(fedoraPastEol(42, "2026-05-27")).toBeUndefined();
    expect(fedoraPastEol(42, "2026-05-28")).toEqual({ release: 42, eol: "2026-05-28" });
    expect(fedoraPastEol(43)).toBeUndefined();
    expect(fedoraPastEol(30)?.eol).toBe("before 2023-12-05");
    fc.assert(
      fc.property(
        fc.constantFrom(...FEDORA_EOL),
        fc.date({ min: new Date("2023-01-01"), max: new Date("2027-12-31"), noInvalidDate: true }),
        (row, d) => {
          const day = d.toISOString().slice(0, 10);
          expect(fedoraPastEol(row.release, day) !== undefined).toBe(row.eol <= day);
        },
      ),
    );
  });
});
