import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { type OpenIdIssuer, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { expectArmError } from "../support/arm";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";

// Issue 40, items 3 and 6a, over the wire: a role-assignment list's $filter (ARM's forms, and a
// 400 InvalidFilter for any other, never an ignored filter that lists other principals'
// assignments to a script deleting them), the other query options no route may ignore, and a
// DELETE with If-Match of an assignment that is not there (412).

const SUBSCRIPTION = "/subscriptions/5d1c7a52-0000-4000-8000-0000000f1140";
const GROUP = `${SUBSCRIPTION}/resourceGroups/Cleanup`;
const INSTANCE = `${GROUP}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant`;
const ENDPOINT = `${INSTANCE}/endpoints/orders`;
const ASSIGNMENTS = "providers/Microsoft.Authorization/roleAssignments";
const listOf = (scope: string) => `${scope === "/" ? "" : scope}/${ASSIGNMENTS}`;
const filtered = (scope: string, filter: string, more = "") =>
  `${listOf(scope)}?$filter=${encodeURIComponent(filter)}${more}`;
const oid = principalObjectId;

interface Assignment {
  id: string;
  name: string;
  scope: string;
  principalId: string;
  roleDefinitionName: string;
}
interface ListBody {
  value: Assignment[];
  nextLink?: string;
}

let issuer: OpenIdIssuer;
let host: TestHost;
let admin: ReturnType<typeof asPrincipal>;
const as = (name: string) => asPrincipal(host, issuer, { name });

beforeAll(async () => {
  issuer = await startTestIssuer();
  host = await startTestHost(adminEntraSettings(issuer));
  admin = as(ADMIN);
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

/** Every page of a list, following nextLink as it is: the assignments, and the pages' count. */
async function listAll(
  caller: ReturnType<typeof asPrincipal>,
  path: string,
): Promise<{ value: Assignment[]; pages: number }> {
  const value: Assignment[] = [];
  let next: string | undefined = path;
  let pages = 0;
  while (next !== undefined) {
    const response = await caller(next);
    if (response.status !== 200) throw new Error(`${next}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as ListBody;
    value.push(...body.value);
    pages++;
    next = body.nextLink === undefined ? undefined : pathOf(body.nextLink);
  }
  return { value, pages };
}

const pathOf = (link: string) => {
  const url = new URL(link);
  return url.pathname + url.search;
};
const names = (assignments: readonly Assignment[]) => assignments.map((assignment) => assignment.name).sort();
const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** Every assignment stored, by name: the root's list of each principal, at and below "/". */
async function everything(principals: readonly string[]): Promise<string[]> {
  const all = await Promise.all(
    principals.map((principal) => listAll(admin, filtered("/", `principalId eq '${oid(principal)}'`))),
  );
  return all.flatMap((list) => names(list.value)).sort();
}

describe("an Owner removing one principal's assignments, as `az role assignment list --assignee` scripts do", () => {
  const victim = "cleanup-bob";
  const bystander = "cleanup-carol";
  const owner = "cleanup-alice";
  let bobs: string[];
  let others: string[];

  beforeAll(async () => {
    const assign = (scope: string, name: string, role: string) =>
      assignRole(host, issuer, scope, name, role).then(nameOf);
    others = [
      await assign(GROUP, owner, "Owner"),
      await assign(GROUP, bystander, "Reader"),
      await assign(INSTANCE, bystander, "Contributor"),
      await assign(ENDPOINT, bystander, "Reader"),
    ];
    bobs = [
      await assign(GROUP, victim, "Reader"),
      await assign(INSTANCE, victim, "Reader"),
      await assign(ENDPOINT, victim, "Contributor"),
    ];
  });

  it("lists only that principal's assignments, at, above and below the scope, page by page", async () => {
    const { value, pages } = await listAll(
      as(owner),
      filtered(GROUP, `principalId eq '${oid(victim)}'`, "&$top=1"),
    );
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(names(value)).toEqual([...bobs].sort());
    for (const assignment of value) expect(assignment.principalId).toBe(oid(victim));
  });

  it("so that deleting what it listed deletes that principal's and no one else's", async () => {
    const before = await everything([owner, bystander, victim]);
    const { value } = await listAll(as(owner), filtered(GROUP, `assignedTo('${oid(victim).toUpperCase()}')`));
    for (const assignment of value)
      expect((await as(owner)(assignment.id, { method: "DELETE" })).status).toBe(200);
    expect(await everything([victim])).toEqual([]);
    expect(await everything([owner, bystander])).toEqual(before.filter((name) => !bobs.includes(name)));
    expect(await everything([owner, bystander])).toEqual([...others].sort());
    // The owner still holds its role: it removed no one's but the victim's.
    expect((await as(owner)(listOf(GROUP))).status).toBe(200);
  });
});

/*
 * A reference model: assignments made at scopes of a tree (with a resource group whose name another
 * one's starts with, and the root and the profiles), lists at each scope with each form of filter,
 * in letter cases and blanks of its own; the model decides from the scopes' levels which
 * assignments each list holds, and the service must answer the same, over every page.
 */
describe("every filter at every scope, against a reference model", () => {
  const MODEL_SUBSCRIPTION = "/subscriptions/5d1c7a52-0000-4000-8000-0000000de110";
  const MODEL_GROUP = `${MODEL_SUBSCRIPTION}/resourceGroups/Model`;
  const MODEL_INSTANCE = `${MODEL_GROUP}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/twin`;
  const SCOPES = [
    "/",
    "/authenticationProfiles",
    "/authenticationProfiles/warehouse",
    MODEL_SUBSCRIPTION,
    MODEL_GROUP,
    `${MODEL_SUBSCRIPTION}/resourceGroups/ModelTwo`,
    MODEL_INSTANCE,
    `${MODEL_INSTANCE}/endpoints/alarms`,
    "/subscriptions/5d1c7a52-0000-4000-8000-00000000e15e",
  ];
  const PRINCIPALS = ["model-p1", "model-p2", "model-p3"];
  let modelHost: TestHost;
  const made: { name: string; scope: string; principal: string }[] = [];

  /** The segments of a scope, names compared as ARM compares them (these are ASCII). */
  const levels = (scope: string) =>
    scope
      .split("/")
      .filter((segment) => segment !== "")
      .map((s) => s.toLowerCase());
  const startsWith = (longer: string[], shorter: string[]) =>
    shorter.every((segment, i) => longer[i] === segment);
  function reference(listScope: string, filter: { principal?: string; below: boolean }): string[] {
    const at = levels(listScope);
    return made
      .filter(({ scope, principal }) => {
        const here = levels(scope);
        const atOrAbove = here.length <= at.length && startsWith(at, here);
        const below = here.length > at.length && startsWith(here, at);
        return (
          (atOrAbove || (filter.below && below)) &&
          (filter.principal === undefined || filter.principal === principal)
        );
      })
      .map(({ name }) => name)
      .sort();
  }

  beforeAll(async () => {
    modelHost = await startTestHost(adminEntraSettings(issuer));
    let turn = 0;
    for (const scope of SCOPES)
      for (const principal of PRINCIPALS) {
        turn++;
        if (turn % 3 === 0) continue;
        const name = nameOf(
          await assignRole(modelHost, issuer, scope, principal, turn % 2 ? "Reader" : "Contributor"),
        );
        made.push({ name, scope, principal });
      }
  });
  afterAll(() => modelHost.stop());

  /** A scope's path with its names in another letter case (names match case-insensitively). */
  const spelled = (scope: string, upper: boolean[]) =>
    scope
      .split("/")
      .map((segment, i) =>
        i % 2 === 0 && i > 0 && upper[i % upper.length] ? segment.toUpperCase() : segment,
      )
      .join("/");
  const anyCase = (word: string, upper: boolean[]) =>
    [...word].map((char, i) => (upper[i % upper.length] ? char.toUpperCase() : char.toLowerCase())).join("");

  it("answers as the model does", async () => {
    const adminOnModel = asPrincipal(modelHost, issuer, { name: ADMIN });
    const principal = fc.constantFrom(...PRINCIPALS, "model-nobody");
    const form = fc.oneof(
      fc.constant({ kind: "none" as const }),
      fc.constant({ kind: "atScope" as const }),
      principal.map((who) => ({ kind: "principalId" as const, who })),
      principal.map((who) => ({ kind: "assignedTo" as const, who })),
      principal.map((who) => ({ kind: "atScopeAndAssignedTo" as const, who })),
      principal.map((who) => ({ kind: "assignedToAndAtScope" as const, who })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SCOPES),
        form,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
        fc.constantFrom(" ", "  ", "\t", " \t"),
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        async (scope, chosen, upper, blank, top) => {
          const id = "who" in chosen ? anyCase(oid(chosen.who), upper) : "";
          const atScope = `${anyCase("atScope", upper)}(${blank.trim()})`;
          const assignedTo = `${anyCase("assignedTo", upper)}(${blank}'${id}')`;
          const and = `${blank}${anyCase("and", upper)}${blank}`;
          const text = {
            none: undefined,
            atScope,
            principalId: `${anyCase("principalId", upper)}${blank}${anyCase("eq", upper)}${blank}'${id}'`,
            assignedTo,
            atScopeAndAssignedTo: `${atScope}${and}${assignedTo}`,
            assignedToAndAtScope: `${blank}${assignedTo}${and}${atScope}${blank}`,
          }[chosen.kind];
          const paging = top === undefined ? "" : `$top=${top}`;
          const path =
            text === undefined
              ? `${listOf(spelled(scope, upper))}${paging && `?${paging}`}`
              : filtered(spelled(scope, upper), text, paging && `&${paging}`);
          const { value } = await listAll(adminOnModel, path);
          const below = chosen.kind === "principalId" || chosen.kind === "assignedTo";
          expect(names(value)).toEqual(
            reference(scope, { ...("who" in chosen && { principal: chosen.who }), below }),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the filter forms, as ARM writes them", () => {
  const dana = "forms-dana";
  const erik = "forms-erik";
  let danaAtGroup: string;
  let danaBelow: string;
  let erikAtGroup: string;
  let danaAbove: string;

  beforeAll(async () => {
    danaAbove = nameOf(await assignRole(host, issuer, SUBSCRIPTION, dana, "Reader"));
    danaAtGroup = nameOf(await assignRole(host, issuer, GROUP, dana, "Contributor"));
    danaBelow = nameOf(await assignRole(host, issuer, INSTANCE, dana, "Reader"));
    erikAtGroup = nameOf(await assignRole(host, issuer, GROUP, erik, "Reader"));
  });

  const of = async (path: string) => {
    const response = await admin(path);
    expect(response.status).toBe(200);
    return names(((await response.json()) as ListBody).value);
  };

  it("atScope(): the assignments at and above the scope, as without a filter, none below", async () => {
    const plain = await of(listOf(GROUP));
    expect(plain).toEqual(expect.arrayContaining([danaAbove, danaAtGroup, erikAtGroup]));
    expect(plain).not.toContain(danaBelow);
    expect(await of(filtered(GROUP, "atScope()"))).toEqual(plain);
  });

  it("principalId eq: the principal's, at, above and below", async () => {
    expect(await of(filtered(GROUP, `principalId eq '${oid(dana)}'`))).toEqual(
      [danaAbove, danaAtGroup, danaBelow].sort(),
    );
    expect(await of(filtered(GROUP, `principalId eq '${randomUUID()}'`))).toEqual([]);
  });

  it("assignedTo: the same (no group's assignments are known here)", async () => {
    expect(await of(filtered(GROUP, `assignedTo('${oid(dana)}')`))).toEqual(
      [danaAbove, danaAtGroup, danaBelow].sort(),
    );
  });

  it("atScope() and assignedTo, in either order: the principal's, at and above", async () => {
    const expected = [danaAbove, danaAtGroup].sort();
    expect(await of(filtered(GROUP, `atScope() and assignedTo('${oid(dana)}')`))).toEqual(expected);
    expect(await of(filtered(GROUP, `assignedTo('${oid(dana)}') and atScope()`))).toEqual(expected);
    expect(await of(filtered(INSTANCE, `atScope() and assignedTo('${oid(erik)}')`))).toEqual([erikAtGroup]);
  });

  it("reads keywords and the GUID in any letter case, blanks as ARM's examples write them (+, %20, tabs)", async () => {
    const expected = [danaAbove, danaAtGroup, danaBelow].sort();
    const id = oid(dana);
    for (const query of [
      `$filter=principalId+eq+'${id}'`,
      `$filter=principalId%20eq%20'${id.toUpperCase()}'`,
      `$filter=PRINCIPALID%09EQ%20%20'${id}'`,
      `$FILTER=principalid eq '${id}'`,
      `$Filter=%20assignedTo(%20'${id.toUpperCase()}'%09)%20`,
      `$filter=assignedTo('${id}')&$filter=assignedTo('${id}')`,
    ])
      expect(await of(`${listOf(GROUP)}?${query}`)).toEqual(expected);
    expect(await of(`${listOf(GROUP)}?$filter=ATSCOPE()+AND+ASSIGNEDTO('${id.toUpperCase()}')`)).toEqual(
      [danaAbove, danaAtGroup].sort(),
    );
  });

  it("keeps the filter in nextLink, and binds its $skipToken to it", async () => {
    const first = await admin(filtered(GROUP, `principalId eq '${oid(dana)}'`, "&$top=1"));
    const page = (await first.json()) as ListBody;
    expect(page.value).toHaveLength(1);
    const link = new URL(page.nextLink as string);
    expect(link.searchParams.get("$filter")).toBe(`principalId eq '${oid(dana)}'`);
    const token = link.searchParams.get("$skipToken") as string;
    const elsewhere = [
      `${listOf(GROUP)}?$skipToken=${token}`,
      `${filtered(GROUP, "atScope()")}&$skipToken=${token}`,
      `${filtered(GROUP, `principalId eq '${oid(erik)}'`)}&$skipToken=${token}`,
      `${filtered(GROUP, `atScope() and assignedTo('${oid(dana)}')`)}&$skipToken=${token}`,
    ];
    for (const path of elsewhere)
      await expectArmError(await admin(path), 400, "InvalidRequestContent", "$skipToken");
    // The same filter in another spelling is the same list.
    const again = await admin(
      `${filtered(GROUP, `assignedTo('${oid(dana).toUpperCase()}')`)}&$skipToken=${token}`,
    );
    expect(again.status).toBe(200);
  });
});

describe("a filter the service does not take", () => {
  const id = principalObjectId("refused-frida");
  const REFUSED: [string, RegExp][] = [
    ["", /is empty/],
    ["   ", /is empty/],
    [`principalId eq ${id}`, /single quotes/],
    [`principalId eq "${id}"`, /single quotes/],
    ["principalId eq ''", /is empty/],
    [`principalId eq '${id.slice(0, -1)}'`, /must be a GUID/],
    [`principalId eq '${id.replace(/-/g, "")}'`, /must be a GUID/],
    [`principalId eq '{${id}}'`, /must be a GUID/],
    [`principalId ne '${id}'`, /takes eq only/],
    [`principalId eq '${id}' or principalId eq '${randomUUID()}'`, /'or'/],
    [`atScope() or assignedTo('${id}')`, /'or'/],
    [`not assignedTo('${id}')`, /'not'/],
    [`(principalId eq '${id}')`, /parentheses/],
    [`roleDefinitionId eq '${id}'`, /filters on 'roleDefinitionId'/],
    [`principalName eq '${id}'`, /filters on 'principalName'/],
    [`startswith(principalId, '${id}')`, /the function 'startswith'/],
    [`atScope() and principalId eq '${id}'`, /ARM refuses it too/],
    [`principalId eq '${id}' and assignedTo('${id}')`, /cannot be combined/],
    ["atScope() and atScope()", /given twice/],
    [`atScope() and assignedTo('${id}') and atScope()`, /a third term/],
    [`principalId eq '${id}'\n`, /the end of the filter/],
    [`principalId\u00a0eq '${id}'`, /a blank after principalId/],
    [`\u212atScope()`, /U\+212A/],
    [`principalId eq '${id}'${" ".repeat(300)}`, /longer than 256/],
  ];

  it.each(REFUSED)("%j is 400 InvalidFilter naming what is wrong", async (filter, expected) => {
    const error = await expectArmError(await admin(filtered(GROUP, filter)), 400, "InvalidFilter", "$filter");
    expect(error.message).toMatch(expected);
  });

  it("nor two different filters, whichever would win", async () => {
    const path = `${filtered(GROUP, `principalId eq '${id}'`)}&$FILTER=${encodeURIComponent("atScope()")}`;
    const error = await expectArmError(await admin(path), 400, "InvalidFilter", "$filter");
    expect(error.message).toMatch(/more than once, with different values/);
  });

  it("changes nothing: every assignment is still there, and a refused list shows none of them", async () => {
    const frida = nameOf(await assignRole(host, issuer, GROUP, "refused-frida", "Reader"));
    const before = await everything(["refused-frida", "cleanup-alice", "forms-dana"]);
    for (const [filter] of REFUSED) {
      const response = await admin(filtered(GROUP, filter));
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).not.toContain(frida);
    }
    expect(await everything(["refused-frida", "cleanup-alice", "forms-dana"])).toEqual(before);
    expect(before).toContain(frida);
  });
});

describe("query options no route ignores", () => {
  const PROFILE = "/authenticationProfiles/audited";
  const OPTIONS = [
    "$orderby=name",
    "$select=name",
    "$expand=x",
    "$skip=1",
    "$count=true",
    "$search=x",
    "$apply=x",
  ];

  beforeAll(async () => {
    const made = await admin(PROFILE, {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: "{}" }),
    });
    expect(made.status).toBe(201);
  });

  it.each(OPTIONS)("%s on a list or a GET is 400 naming it", async (option) => {
    const name = option.slice(0, option.indexOf("="));
    for (const path of [
      "/authenticationProfiles",
      PROFILE,
      `${INSTANCE}/endpoints`,
      listOf(GROUP),
      filtered(GROUP, "atScope()"),
    ]) {
      const joined = `${path}${path.includes("?") ? "&" : "?"}${option.replace(name, name.toUpperCase())}`;
      await expectArmError(await admin(joined), 400, "InvalidRequestContent", name.toUpperCase());
    }
  });

  it("$filter on a list that takes none, or on a GET of one, is 400 InvalidFilter", async () => {
    for (const path of [
      "/authenticationProfiles",
      PROFILE,
      `${INSTANCE}/endpoints`,
      `${INSTANCE}/eventRoutes`,
    ])
      await expectArmError(await admin(`${path}?$filter=name eq 'audited'`), 400, "InvalidFilter", "$filter");
  });

  it("tenantId (ARM's cross-tenant request) on a role-assignment list or GET is 400", async () => {
    const at = await assignRole(host, issuer, GROUP, "tenant-gus", "Reader");
    for (const path of [`${listOf(GROUP)}?tenantId=x`, `${at}?TenantId=${randomUUID()}`])
      await expectArmError(await admin(path), 400, "InvalidRequestContent", "tenantId");
  });

  it("still takes $top and $skipToken where they were taken, and ignores names that are no option", async () => {
    expect((await admin("/authenticationProfiles?$top=1&foo=bar")).status).toBe(200);
    expect((await admin(`${PROFILE}?foo=bar&api-version=2026-11-01`)).status).toBe(200);
    expect((await admin(`${listOf(GROUP)}?$TOP=1&$filter=atScope()&x=1`)).status).toBe(200);
  });
});

describe("DELETE of a role assignment that is not there", () => {
  it("with If-Match (any value, * too) is 412; without it stays 204", async () => {
    const missing = `${listOf(GROUP)}/${randomUUID()}`;
    for (const ifMatch of ["*", '"abc"', 'W/"abc"', '"a", "b"']) {
      const error = await expectArmError(
        await admin(missing, { method: "DELETE", headers: { "If-Match": ifMatch } }),
        412,
        "PreconditionFailed",
        "If-Match",
      );
      expect(error.message).toMatch(/does not exist/);
    }
    expect((await admin(missing, { method: "DELETE" })).status).toBe(204);
  });

  it("at a scope it is not at, with If-Match, is 412 and leaves it where it is", async () => {
    const at = await assignRole(host, issuer, GROUP, "ifmatch-hana", "Reader");
    const elsewhere = `${listOf(INSTANCE)}/${nameOf(at)}`;
    await expectArmError(
      await admin(elsewhere, { method: "DELETE", headers: { "If-Match": "*" } }),
      412,
      "PreconditionFailed",
    );
    expect((await admin(at)).status).toBe(200);
    const etag = (await admin(at)).headers.get("etag") as string;
    expect((await admin(at, { method: "DELETE", headers: { "If-Match": etag } })).status).toBe(200);
    await expectArmError(
      await admin(at, { method: "DELETE", headers: { "If-Match": etag } }),
      412,
      "PreconditionFailed",
    );
  });
});

describe("the API description", () => {
  it("gives a role-assignment list's $filter with its grammar and the 400", async () => {
    const document = (await (await host.request("/openapi.json", { key: null })).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters: { name: string; schema: { pattern: string } }[];
            responses: Record<string, { description: string }>;
          }
        >
      >;
    };
    const list = document.paths[`/subscriptions/{subscriptionId}/${ASSIGNMENTS}`]?.get;
    expect(list).toBeDefined();
    const filter = list?.parameters.find((parameter) => parameter.name === "$filter");
    expect(filter?.schema.pattern).toEqual(expect.any(String));
    const pattern = new RegExp(filter?.schema.pattern as string, "u");
    expect(pattern.test(`atScope() and assignedTo('${randomUUID()}')`)).toBe(true);
    expect(pattern.test(`principalId eq '${randomUUID()}' or atScope()`)).toBe(false);
    expect(list?.responses["400"]?.description).toMatch(/InvalidFilter/);
    const profiles = document.paths["/authenticationProfiles"]?.get;
    expect(profiles?.parameters.some((parameter) => parameter.name === "$filter")).toBe(false);
  });
});
