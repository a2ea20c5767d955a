import { expectArmError } from "../support/arm";
import { startTestHost, type TestHost } from "../support/test-host";

// AuthenticationProfile, docs/api.md: every operation and every rule over HTTP.
let host: TestHost;
beforeAll(async () => {
  // A count quota high enough for every profile this file makes; quotas have their own file.
  host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "1000" });
});
afterAll(() => host.stop());

const SAMPLE = '{"AllowDBUserOverride":"1","Client_ID":"ExampleClientID","App_ID":"example"}';

function put(name: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return host.request(`/authenticationProfiles/${name}`, {
    method: "PUT",
    body: JSON.stringify(body),
    headers,
  });
}

function patch(name: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return host.request(`/authenticationProfiles/${name}`, {
    method: "PATCH",
    body: JSON.stringify(body),
    headers,
  });
}

describe("create, read, update, delete", () => {
  it("answers 201 with the resource and an ETag when PUT creates", async () => {
    const response = await put("create-me", { authenticationProfileContent: SAMPLE });
    expect(response.status).toBe(201);
    expect(response.headers.get("etag")).toMatch(/^".+"$/);
    expect(await response.json()).toEqual({
      id: "create-me",
      authenticationProfileName: "create-me",
      authenticationProfileContent: SAMPLE,
      systemData: expect.objectContaining({ createdBy: "default", createdByType: "Key" }),
    });
  });

  it("answers 200 with a new ETag when PUT replaces", async () => {
    const first = await put("replace-me", { authenticationProfileContent: "{}" });
    const second = await put("replace-me", { authenticationProfileContent: '{"App_ID":"2"}' });
    expect(second.status).toBe(200);
    expect(second.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(
      ((await second.json()) as { authenticationProfileContent: string }).authenticationProfileContent,
    ).toBe('{"App_ID":"2"}');
  });

  it("stores and returns the content string exactly as sent", async () => {
    const content = '{ "App_ID" :  "spaced",\n  "Client_ID": "é" }';
    await put("exact", { authenticationProfileContent: content });
    const body = (await (await host.request("/authenticationProfiles/exact")).json()) as Record<
      string,
      string
    >;
    expect(body.authenticationProfileContent).toBe(content);
  });

  it("imports by name: GET by the name returns the resource with its ETag", async () => {
    const created = await put("importable", { authenticationProfileContent: SAMPLE });
    const response = await host.request("/authenticationProfiles/importable");
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toBe(created.headers.get("etag"));
    expect(((await response.json()) as { id: string }).id).toBe("importable");
  });

  it("matches names case-insensitively and keeps the casing given at creation", async () => {
    await put("MixedCase", { authenticationProfileContent: "{}" });
    const read = (await (await host.request("/authenticationProfiles/mixedcase")).json()) as Record<
      string,
      string
    >;
    expect(read.authenticationProfileName).toBe("MixedCase");
    const replaced = await put("MIXEDCASE", { authenticationProfileContent: SAMPLE });
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as Record<string, string>).id).toBe("MixedCase");
  });

  it("PATCH changes only the fields sent", async () => {
    await put("patch-me", { authenticationProfileContent: "{}" });
    const response = await patch("patch-me", { authenticationProfileContent: SAMPLE });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Record<string, string>).authenticationProfileContent).toBe(SAMPLE);
    const empty = await patch("patch-me", {});
    expect(((await empty.json()) as Record<string, string>).authenticationProfileContent).toBe(SAMPLE);
  });

  it("PATCH answers 404 for a profile that does not exist", async () => {
    await expectArmError(
      await patch("never-made", { authenticationProfileContent: "{}" }),
      404,
      "ResourceNotFound",
    );
  });

  it("DELETE answers 200 when it deleted and 204 when there was nothing", async () => {
    await put("delete-me", { authenticationProfileContent: "{}" });
    const first = await host.request("/authenticationProfiles/delete-me", { method: "DELETE" });
    expect(first.status).toBe(200);
    const second = await host.request("/authenticationProfiles/delete-me", { method: "DELETE" });
    expect(second.status).toBe(204);
    expect(await second.text()).toBe("");
  });

  it("GET answers 404 ResourceNotFound naming the profile", async () => {
    const error = await expectArmError(
      await host.request("/authenticationProfiles/ghost"),
      404,
      "ResourceNotFound",
    );
    expect(error.message).toContain("ghost");
  });

  it("lists profiles with their fields", async () => {
    const body = (await (await host.request("/authenticationProfiles")).json()) as {
      value: Record<string, string>[];
    };
    expect(body.value.find((item) => item.id === "create-me")).toEqual({
      id: "create-me",
      authenticationProfileName: "create-me",
      authenticationProfileContent: SAMPLE,
      systemData: expect.objectContaining({ createdBy: "default", createdByType: "Key" }),
    });
  });
});

describe("field names", () => {
  it("accepts the snake_case spelling of each field", async () => {
    const response = await put("snake", {
      authentication_profile_content: SAMPLE,
      authentication_profile_name: "snake",
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as Record<string, string>).authenticationProfileContent).toBe(SAMPLE);
  });

  it("answers 400 when both spellings of a field are sent", async () => {
    const response = await put("both", {
      authenticationProfileContent: "{}",
      authentication_profile_content: "{}",
    });
    await expectArmError(response, 400, "InvalidRequestContent", "authenticationProfileContent");
  });

  it("answers 400 for an unknown property, naming it", async () => {
    const error = await expectArmError(
      await put("unknown", { authenticationProfileContent: "{}", colour: "blue" }),
      400,
      "InvalidRequestContent",
      "colour",
    );
    expect(error.details).toEqual([expect.objectContaining({ code: "UnknownProperty", target: "colour" })]);
  });
});

describe("rules", () => {
  it("answers 400 when the content is missing, saying it is required", async () => {
    const error = await expectArmError(
      await put("no-content", {}),
      400,
      "InvalidRequestContent",
      "authenticationProfileContent",
    );
    expect(error.message).toBe("The field 'authenticationProfileContent' is required.");
  });

  it("answers 400 when the content is not a string, saying what type it must be", async () => {
    const error = await expectArmError(
      await put("object-content", { authenticationProfileContent: { App_ID: "x" } }),
      400,
      "InvalidRequestContent",
      "authenticationProfileContent",
    );
    expect(error.message).toBe(
      "The field 'authenticationProfileContent' must be a string, but it is an object.",
    );
  });

  it.each([
    ["not JSON", "{App_ID: x}"],
    ["a JSON array", "[]"],
    ["a JSON number", "1"],
  ])("answers 400 when the content is %s", async (_label, content) => {
    await expectArmError(
      await put("bad-content", { authenticationProfileContent: content }),
      400,
      "InvalidRequestContent",
      "authenticationProfileContent",
    );
  });

  it.each(["AccessKeyID", "secret_access_key_id", "password", "AUTH_PROFILE"])(
    "answers 400 naming the credential key %s, without echoing its value",
    async (key) => {
      const response = await put("with-credential", {
        authenticationProfileContent: JSON.stringify({ [key]: "s3cr3t" }),
      });
      const error = await expectArmError(
        response,
        400,
        "InvalidRequestContent",
        "authenticationProfileContent",
      );
      expect(error.message).toContain(key);
      expect(JSON.stringify(error)).not.toContain("s3cr3t");
    },
  );

  it.each([
    ["64 characters", "a".repeat(64)],
    ["an underscore", "under_score"],
    ["a dot", "dot.name"],
    ["a space", "with%20space"],
  ])("answers 400 for a name with %s", async (_label, name) => {
    await expectArmError(
      await put(name, { authenticationProfileContent: "{}" }),
      400,
      "InvalidRequestContent",
      "authenticationProfileName",
    );
    await expectArmError(
      await host.request(`/authenticationProfiles/${name}`),
      400,
      "InvalidRequestContent",
      "authenticationProfileName",
    );
  });

  it("accepts a name of 63 letters, digits and hyphens", async () => {
    expect((await put(`A1-${"b".repeat(60)}`, { authenticationProfileContent: "{}" })).status).toBe(201);
  });

  it("answers 400 when the body's name differs from the path", async () => {
    await expectArmError(
      await put("path-name", { authenticationProfileContent: "{}", authenticationProfileName: "other-name" }),
      400,
      "InvalidRequestContent",
      "authenticationProfileName",
    );
    expect(
      (await put("path-name", { authenticationProfileContent: "{}", authenticationProfileName: "PATH-NAME" }))
        .status,
    ).toBe(201);
  });

  it("takes the read-only id only with its current value", async () => {
    await expectArmError(
      await put("with-id", { authenticationProfileContent: "{}", id: "something-else" }),
      400,
      "InvalidRequestContent",
      "id",
    );
    expect((await put("with-id", { authenticationProfileContent: "{}", id: "with-id" })).status).toBe(201);
  });

  it("lists every failing field in details", async () => {
    const error = await expectArmError(
      await put("many", {
        authenticationProfileContent: 5,
        authenticationProfileName: "bad name",
        extra: true,
      }),
      400,
      "InvalidRequestContent",
    );
    expect(error.details?.map((detail) => detail.target).sort()).toEqual([
      "authenticationProfileContent",
      "authenticationProfileName",
      "extra",
    ]);
  });
});

describe("conditional requests", () => {
  async function create(name: string): Promise<string> {
    const response = await put(name, { authenticationProfileContent: "{}" });
    expect(response.status).toBe(201);
    return response.headers.get("etag") as string;
  }

  it("PUT with a stale If-Match answers 412 and changes nothing", async () => {
    const etag = await create("cond-put");
    await put("cond-put", { authenticationProfileContent: SAMPLE }, { "If-Match": etag });
    await expectArmError(
      await put("cond-put", { authenticationProfileContent: '{"App_ID":"late"}' }, { "If-Match": etag }),
      412,
      "PreconditionFailed",
      "If-Match",
    );
    const body = (await (await host.request("/authenticationProfiles/cond-put")).json()) as Record<
      string,
      string
    >;
    expect(body.authenticationProfileContent).toBe(SAMPLE);
  });

  it("PUT with the current If-Match answers 200", async () => {
    const etag = await create("cond-current");
    expect(
      (await put("cond-current", { authenticationProfileContent: SAMPLE }, { "If-Match": etag })).status,
    ).toBe(200);
  });

  it("PUT with If-Match: * answers 412 when the profile does not exist", async () => {
    await expectArmError(
      await put("cond-absent", { authenticationProfileContent: "{}" }, { "If-Match": "*" }),
      412,
      "PreconditionFailed",
    );
    expect((await host.request("/authenticationProfiles/cond-absent")).status).toBe(404);
  });

  it("PUT with If-None-Match: * creates once, then answers 412", async () => {
    expect(
      (await put("cond-once", { authenticationProfileContent: "{}" }, { "If-None-Match": "*" })).status,
    ).toBe(201);
    await expectArmError(
      await put("cond-once", { authenticationProfileContent: "{}" }, { "If-None-Match": "*" }),
      412,
      "PreconditionFailed",
      "If-None-Match",
    );
  });

  it("GET with the current ETag in If-None-Match answers 304 with no body", async () => {
    const etag = await create("cond-get");
    const response = await host.request("/authenticationProfiles/cond-get", {
      headers: { "If-None-Match": etag },
    });
    expect(response.status).toBe(304);
    expect(response.headers.get("etag")).toBe(etag);
    expect(await response.text()).toBe("");
    const stale = await host.request("/authenticationProfiles/cond-get", {
      headers: { "If-None-Match": '"old"' },
    });
    expect(stale.status).toBe(200);
  });

  it("PATCH and DELETE with a stale If-Match answer 412; with the current one they succeed", async () => {
    const etag = await create("cond-patch");
    const patched = await patch("cond-patch", { authenticationProfileContent: SAMPLE }, { "If-Match": etag });
    expect(patched.status).toBe(200);
    await expectArmError(await patch("cond-patch", {}, { "If-Match": etag }), 412, "PreconditionFailed");
    await expectArmError(
      await host.request("/authenticationProfiles/cond-patch", {
        method: "DELETE",
        headers: { "If-Match": etag },
      }),
      412,
      "PreconditionFailed",
    );
    const current = patched.headers.get("etag") as string;
    const deleted = await host.request("/authenticationProfiles/cond-patch", {
      method: "DELETE",
      headers: { "If-Match": current },
    });
    expect(deleted.status).toBe(200);
  });

  it("DELETE with If-Match answers 412 when there is nothing to delete", async () => {
    await expectArmError(
      await host.request("/authenticationProfiles/cond-gone", {
        method: "DELETE",
        headers: { "If-Match": "*" },
      }),
      412,
      "PreconditionFailed",
    );
  });
});
