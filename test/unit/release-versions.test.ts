import { readFileSync } from "node:fs";
import * as path from "node:path";
import { CLIENT_VERSION } from "../../client/version";

// CHANGELOG.md's versioning policy: the service (root package.json, the client package built from
// it), the client (CLIENT_VERSION, kept equal) and the Pulumi package follow semver, and each
// changelog's latest entry names its package's current version.

const ROOT = path.join(__dirname, "..", "..");

/** semver.org's regular expression for a version (2.0.0). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function manifestVersion(file: string): string {
  return (JSON.parse(readFileSync(path.join(ROOT, file), "utf8")) as { version: string }).version;
}

/** The first `## [...]` heading: `## [Unreleased] - 1.2.0` or `## [1.1.0] - 2026-11-30`. */
function latestHeading(file: string): string {
  const heading = readFileSync(path.join(ROOT, file), "utf8")
    .split("\n")
    .find((line) => line.startsWith("## ["));
  if (heading === undefined) throw new Error(`${file} has no version heading`);
  return heading;
}

/** The version a heading names: the bracketed one, or after Unreleased the one it will be. */
function headingVersion(heading: string): string | undefined {
  return (
    /^## \[Unreleased\] - (\S+)$/.exec(heading)?.[1] ??
    /^## \[([^\]]+)\] - \d{4}-\d{2}-\d{2}$/.exec(heading)?.[1]
  );
}

const PACKAGES: [string, string, string][] = [
  ["the service and its HTTP contract", manifestVersion("package.json"), "CHANGELOG.md"],
  ["the client (and its CLI)", CLIENT_VERSION, "client/CHANGELOG.md"],
  ["the Pulumi package", manifestVersion("pulumi/package.json"), "pulumi/CHANGELOG.md"],
];

describe("release versions", () => {
  it.each(PACKAGES)(
    "%s has a semver version, named by its changelog's latest heading",
    (_, version, changelog) => {
      expect(version).toMatch(SEMVER);
      expect(headingVersion(latestHeading(changelog))).toBe(version);
    },
  );

  it("keeps CLIENT_VERSION equal to the root package.json's version", () => {
    expect(CLIENT_VERSION).toBe(manifestVersion("package.json"));
  });

  it("reads both heading forms and refuses versions semver does not allow", () => {
    expect(headingVersion("## [Unreleased] - 1.2.0")).toBe("1.2.0");
    expect(headingVersion("## [1.1.0] - 2026-11-30")).toBe("1.1.0");
    expect(headingVersion("## [Unreleased]")).toBeUndefined();
    for (const bad of ["1.0", "01.0.0", "v1.0.0", "1.0.0-"]) expect(bad).not.toMatch(SEMVER);
    for (const good of ["0.1.0", "1.0.0-rc.1", "2.3.4+build.5"]) expect(good).toMatch(SEMVER);
  });

  it("links the packages' changelogs from the root one", () => {
    const root = readFileSync(path.join(ROOT, "CHANGELOG.md"), "utf8");
    expect(root).toContain("](client/CHANGELOG.md)");
    expect(root).toContain("](pulumi/CHANGELOG.md)");
  });
});
