import fc from "fast-check";
import { actionMatches, rolePermits } from "../../src/auth/action-match";
import { BUILT_IN_ROLES, type RoleDefinition, roleByName } from "../../src/auth/role-definitions";

function role(name: string): RoleDefinition {
  const found = roleByName(name);
  if (found === undefined) throw new Error(`no role ${name}`);
  return found;
}

const ASSIGN = "Microsoft.Authorization/roleAssignments";

describe("actionMatches", () => {
  it("lets '*' stand for any run of characters, '/' included", () => {
    expect(actionMatches("*", "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read")).toBe(true);
    expect(actionMatches("*/read", "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read")).toBe(true);
    expect(actionMatches("Microsoft.Authorization/*/write", `${ASSIGN}/write`)).toBe(true);
    expect(actionMatches("Microsoft.Authorization/*/write", "Microsoft.Authorization/a/b/c/write")).toBe(
      true,
    );
    expect(actionMatches("Microsoft.*/events/action", "Microsoft.DigitalTwins/x/events/action")).toBe(true);
  });

  it("matches the whole action, never a part of it", () => {
    expect(actionMatches("*/read", "TwinResources/authenticationProfiles/readx")).toBe(false);
    expect(actionMatches("*/read", "TwinResources/authenticationProfiles/write")).toBe(false);
    expect(actionMatches("Microsoft.Authorization/*/write", `x${ASSIGN}/write`)).toBe(false);
    expect(actionMatches("Microsoft.Authorization/*/write", `${ASSIGN}/write/read`)).toBe(false);
    // '*/read' needs a '/' before read: a bare "read" is no action of a type.
    expect(actionMatches("*/read", "read")).toBe(false);
  });

  it("compares case-insensitively, pattern and action alike", () => {
    expect(actionMatches("*/READ", "twinresources/authenticationprofiles/read")).toBe(true);
    expect(actionMatches("microsoft.authorization/*/WRITE", `${ASSIGN}/Write`.toUpperCase())).toBe(true);
  });

  it.each([
    ["Microsoft.Authorization/*/write", "MicrosoftXAuthorization/roleAssignments/write"],
    ["a+b/read", "aab/read"],
    ["a?/read", "a/read"],
    ["(a|b)/read", "a/read"],
    ["[ab]/read", "a/read"],
    ["a{2}/read", "aa/read"],
    ["^a$/read", "a/read"],
    ["a\\d/read", "a1/read"],
    ["$1/read", "$1x/read"],
  ])("takes regex metacharacters in %j literally (never matches %j)", (pattern, action) => {
    expect(actionMatches(pattern, action)).toBe(false);
    // ...and still matches itself, character for character.
    expect(actionMatches(pattern, pattern)).toBe(true);
  });

  it("matches exactly what a glob with '*' = any run matches (property, any text)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "B", "/", ".", "*", "(", "[", "\\", "$", "?", "+") });
    fc.assert(
      fc.property(
        text,
        fc.string({ unit: fc.constantFrom("a", "b", "A", "/", ".", "(", "[", "\\", "$", "?", "+") }),
        (pattern, action) => {
          expect(actionMatches(pattern, action)).toBe(
            globMatches(pattern.toLowerCase(), action.toLowerCase()),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a pattern without '*' matches only itself, in any case", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("*")),
        fc.string(),
        (pattern, other) => {
          expect(actionMatches(pattern, pattern.toUpperCase())).toBe(
            pattern.toUpperCase().toLowerCase() === pattern.toLowerCase(),
          );
          if (other.toLowerCase() !== pattern.toLowerCase())
            expect(actionMatches(pattern, other)).toBe(false);
        },
      ),
    );
  });
});

/** The reference: a glob matcher by dynamic programming, no regular expressions. */
function globMatches(pattern: string, text: string): boolean {
  let row = Array.from({ length: text.length + 1 }, (_, j) => j === 0);
  for (const p of pattern) {
    const next = Array.from({ length: text.length + 1 }, () => false);
    next[0] = p === "*" && (row[0] as boolean);
    for (let j = 1; j <= text.length; j++) {
      next[j] =
        p === "*"
          ? (row[j] as boolean) || (next[j - 1] as boolean)
          : (row[j - 1] as boolean) && p === text[j - 1];
    }
    row = next;
  }
  return row[text.length] as boolean;
}

describe("rolePermits", () => {
  const actions = [
    "TwinResources/authenticationProfiles/read",
    "TwinResources/authenticationProfiles/write",
    "TwinResources/authenticationProfiles/delete",
    "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read",
    "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/write",
    "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/delete",
    "Microsoft.DigitalTwins/digitalTwinsInstances/events/action",
    "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/redeliverDeadLetters/action",
    "Microsoft.Migrate/assessmentProjects/clusterAssessments/read",
    "Microsoft.Migrate/assessmentProjects/clusterAssessments/write",
    "Microsoft.Migrate/assessmentProjects/clusterAssessments/delete",
    `${ASSIGN}/read`,
    `${ASSIGN}/write`,
    `${ASSIGN}/delete`,
    "Microsoft.ManagedIdentity/userAssignedIdentities/read",
    "Microsoft.ManagedIdentity/userAssignedIdentities/assign/action",
    "Microsoft.ManagedIdentity/userAssignedIdentities/write",
  ];
  const expected: Record<string, (action: string) => boolean> = {
    Owner: () => true,
    Contributor: (action) => action !== `${ASSIGN}/write` && action !== `${ASSIGN}/delete`,
    Reader: (action) => action.endsWith("/read"),
    "Managed Identity Operator": (action) =>
      action === "Microsoft.ManagedIdentity/userAssignedIdentities/read" ||
      action === "Microsoft.ManagedIdentity/userAssignedIdentities/assign/action",
    "Twin Events Sender": (action) => action === "Microsoft.DigitalTwins/digitalTwinsInstances/events/action",
    "Assessment Writer": (action) =>
      action.startsWith("Microsoft.Migrate/assessmentProjects/clusterAssessments/"),
  };

  it("gives each built-in role exactly its actions over every route's action", () => {
    expect(BUILT_IN_ROLES.map((r) => r.roleName).sort()).toEqual(Object.keys(expected).sort());
    for (const definition of BUILT_IN_ROLES) {
      for (const action of actions) {
        expect([definition.roleName, action, rolePermits(definition, action)]).toEqual([
          definition.roleName,
          action,
          (expected[definition.roleName] as (a: string) => boolean)(action),
        ]);
      }
    }
  });

  it("keeps Contributor from writing or deleting role assignments in any spelling, but lets it read them", () => {
    const contributor = role("Contributor");
    for (const verb of ["write", "WRITE", "Write", "delete", "DELETE"]) {
      expect(rolePermits(contributor, `${ASSIGN}/${verb}`)).toBe(false);
      expect(rolePermits(contributor, `${ASSIGN}/${verb}`.toLowerCase())).toBe(false);
      expect(rolePermits(contributor, `MICROSOFT.AUTHORIZATION/roleassignments/${verb}`)).toBe(false);
    }
    expect(rolePermits(contributor, `${ASSIGN}/read`)).toBe(true);
    expect(rolePermits(role("Owner"), `${ASSIGN}/write`)).toBe(true);
  });

  it("NotActions always win over Actions (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...actions),
        fc.constantFrom("*", "*/read", "*/write", "Microsoft.*"),
        (action, pattern) => {
          const definition: RoleDefinition = {
            name: "x",
            roleName: "x",
            description: "",
            actions: ["*"],
            notActions: [pattern],
          };
          expect(rolePermits(definition, action)).toBe(!actionMatches(pattern, action));
        },
      ),
    );
  });
});
