import fc from "fast-check";
import {
  ARM_ROOT,
  type ArmId,
  childOf,
  covers,
  parseArmId,
  profileId,
  profilesId,
  providerResourceId,
  resourceGroupId,
  subscriptionId,
} from "../../src/auth/arm-id";

function id(text: string): ArmId {
  const parsed = parseArmId(text);
  if (parsed === undefined) throw new Error(`${text} is no ARM id`);
  return parsed;
}

const INSTANCE = "/subscriptions/s/resourceGroups/g/providers/Microsoft.DigitalTwins/digitalTwinsInstances/i";

describe("typed ARM ids", () => {
  it("read keywords by position: a name equal to one is a name", () => {
    expect(id("/authenticationProfiles/providers")).toEqual(profileId("providers"));
    expect(id("/subscriptions/providers/resourceGroups/resourceGroups")).toEqual(
      resourceGroupId("providers", "resourceGroups"),
    );
    expect(id(`${INSTANCE}/endpoints/providers`)).toEqual(
      childOf(
        providerResourceId(resourceGroupId("s", "g"), "Microsoft.DigitalTwins", "digitalTwinsInstances", "i"),
        "endpoints",
        "providers",
      ),
    );
  });

  it("refuse what no route makes: an extension with no resource, a type named providers, odd levels", () => {
    for (const text of [
      `${INSTANCE}/providers/Microsoft.Authorization`,
      `${INSTANCE}/providers/Microsoft.Authorization/roleAssignments/x`,
      "/subscriptions/s/resourceGroups/g/providers/X.Y/providers/n",
      `${INSTANCE}/endpoints`,
      "/authenticationProfiles/a/b",
      "/subscriptions",
      "/resourceGroups/g",
      "/providers/Microsoft.Authorization/roleAssignments",
    ])
      expect(parseArmId(text)).toBeUndefined();
  });

  it("cover a target when the scope is it or an ancestor, level by level", () => {
    expect(covers(ARM_ROOT, id(INSTANCE))).toBe(true);
    expect(covers(id("/subscriptions/S"), id(INSTANCE))).toBe(true);
    expect(covers(id(INSTANCE), id(`${INSTANCE}/endpoints/e`))).toBe(true);
    expect(covers(id(`${INSTANCE}/endpoints/e`), id(INSTANCE))).toBe(false);
    expect(covers(profilesId(), profileId("a"))).toBe(true);
    expect(covers(profileId("a"), profilesId())).toBe(false);
    expect(covers(profileId("providers"), profilesId())).toBe(false);
    expect(covers(profilesId(), ARM_ROOT)).toBe(false);
    // Same names, other types: a resource group is not a subscription, an endpoint not a route.
    expect(covers(id("/subscriptions/g"), id("/subscriptions/s/resourceGroups/g"))).toBe(false);
    expect(covers(childOf(id(INSTANCE), "eventRoutes", "e"), id(`${INSTANCE}/endpoints/e`))).toBe(false);
    expect(
      covers(
        id("/subscriptions/s/resourceGroups/g/providers/Microsoft.DigitalTwins/digitalTwinsInstances/i2"),
        id(INSTANCE),
      ),
    ).toBe(false);
  });

  it("compare as ARM does: case-insensitively, but the Kelvin sign is not K", () => {
    expect(covers(id("/SUBSCRIPTIONS/ABC"), id("/subscriptions/abc/resourcegroups/RG"))).toBe(true);
    expect(covers(subscriptionId("k"), subscriptionId("\u212A"))).toBe(false);
    expect(covers(subscriptionId("ss"), subscriptionId("ß"))).toBe(false);
  });

  it("read each name at its position, whatever it spells (property)", () => {
    const name = fc.constantFrom(
      "a",
      "B",
      "providers",
      "resourceGroups",
      "Microsoft.Authorization",
      "roleAssignments",
      "endpoints",
      "x.y",
    );
    const type = fc.constantFrom("t", "endpoints", "clusterAssessments", "roleAssignments");
    const text = fc.oneof(
      fc.constant<[string, (string | undefined)[]]>(["/", []]),
      fc.constant<[string, (string | undefined)[]]>(["/authenticationProfiles", [undefined]]),
      name.map((n): [string, (string | undefined)[]] => [`/authenticationProfiles/${n}`, [n]]),
      fc
        .tuple(
          name,
          fc.option(
            fc.tuple(
              name,
              fc.option(
                fc.tuple(
                  fc.constantFrom("X.Y", "Microsoft.Migrate"),
                  type,
                  name,
                  fc.array(fc.tuple(type, name), { maxLength: 2 }),
                ),
              ),
            ),
          ),
        )
        .map(([s, rest]): [string, (string | undefined)[]] => {
          let path = `/subscriptions/${s}`;
          const names: (string | undefined)[] = [s];
          if (rest === null) return [path, names];
          path += `/resourceGroups/${rest[0]}`;
          names.push(rest[0]);
          if (rest[1] === null) return [path, names];
          const [ns, t, n, children] = rest[1];
          path += `/providers/${ns}/${t}/${n}`;
          names.push(n);
          for (const [childType, childName] of children) {
            path += `/${childType}/${childName}`;
            names.push(childName);
          }
          return [path, names];
        }),
    );
    fc.assert(
      fc.property(text, ([path, names]) => {
        expect(id(path).levels.map((level) => level.name)).toEqual(names);
      }),
    );
  });

  it("cover reflexively and transitively, and never both ways between different ids (property)", () => {
    const texts = [
      "/",
      "/authenticationProfiles",
      "/authenticationProfiles/a",
      "/authenticationProfiles/providers",
      "/subscriptions/s",
      "/subscriptions/S/resourceGroups/g",
      INSTANCE,
      `${INSTANCE}/endpoints/e`,
      `${INSTANCE}/endpoints/E`,
      `${INSTANCE}/eventRoutes/e`,
    ];
    const any = fc.constantFrom(...texts);
    fc.assert(
      fc.property(any, any, any, (a, b, c) => {
        expect(covers(id(a), id(a))).toBe(true);
        if (covers(id(a), id(b)) && covers(id(b), id(c))) expect(covers(id(a), id(c))).toBe(true);
        if (covers(id(a), id(b)) && covers(id(b), id(a))) expect(a.toLowerCase()).toBe(b.toLowerCase());
      }),
    );
  });
});
