import { ServiceError, TwinServiceClient } from "../../client";
import { startTestHost, type TestHost } from "../support/test-host";
import { clientFor, collect, keySystemData, rejection, SAMPLE_PROFILE_CONTENT } from "./fixtures";

// The client's AuthenticationProfile calls against the local stack (docs/api.md).
let host: TestHost;
let client: TwinServiceClient;
beforeAll(async () => {
  host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "1000", AUTH_PROFILE_CONTENT_MAX_BYTES: "256" });
  client = clientFor(host);
});
afterAll(() => host.stop());

describe("create, read, update, delete", () => {
  it("put creates (created: true) and then replaces (created: false), each with a new etag", async () => {
    const created = await client.profiles.put("warehouse-sso", { authenticationProfileContent: "{}" });
    expect(created).toEqual({
      id: "warehouse-sso",
      authenticationProfileName: "warehouse-sso",
      authenticationProfileContent: "{}",
      etag: expect.stringMatching(/^".+"$/),
      created: true,
      systemData: keySystemData(),
    });
    const replaced = await client.profiles.put("warehouse-sso", {
      authenticationProfileContent: SAMPLE_PROFILE_CONTENT,
    });
    expect(replaced.created).toBe(false);
    expect(replaced.etag).not.toBe(created.etag);
    expect(replaced.authenticationProfileContent).toBe(SAMPLE_PROFILE_CONTENT);
  });

  it("get returns the profile with the etag of its last write", async () => {
    const written = await client.profiles.put("readable", {
      authenticationProfileContent: SAMPLE_PROFILE_CONTENT,
    });
    const read = await client.profiles.get("readable");
    expect(read).toEqual({
      id: "readable",
      authenticationProfileName: "readable",
      authenticationProfileContent: SAMPLE_PROFILE_CONTENT,
      etag: written.etag,
      systemData: written.systemData,
    });
  });

  it("update changes the given fields (PATCH) and returns the new etag", async () => {
    const written = await client.profiles.put("patchable", { authenticationProfileContent: "{}" });
    const updated = await client.profiles.update("patchable", {
      authenticationProfileContent: '{"App_ID":"2"}',
    });
    expect(updated.authenticationProfileContent).toBe('{"App_ID":"2"}');
    expect(updated.etag).not.toBe(written.etag);
  });

  it("delete answers true when it deleted and false when there was nothing", async () => {
    await client.profiles.put("deletable", { authenticationProfileContent: "{}" });
    expect(await client.profiles.delete("deletable")).toBe(true);
    expect(await client.profiles.delete("deletable")).toBe(false);
  });

  it("encodes names, so a name cannot reach another path", async () => {
    const error = await rejection(() => client.profiles.get("a/../../health"));
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(400);
    await expect(client.profiles.get("..")).rejects.toThrow(RangeError);
    await expect(collect(client.profiles.list({ top: 0 }))).rejects.toThrow(ServiceError);
  });
});

describe("conditional requests", () => {
  it("create refuses an existing name with 412 (If-None-Match: *)", async () => {
    await client.profiles.create("only-once", { authenticationProfileContent: "{}" });
    const error = (await rejection(() =>
      client.profiles.create("only-once", { authenticationProfileContent: "{}" }),
    )) as ServiceError;
    expect({ status: error.status, code: error.code, target: error.target }).toEqual({
      status: 412,
      code: "PreconditionFailed",
      target: "If-None-Match",
    });
  });

  it("a write with a stale ifMatch fails with 412 and changes nothing", async () => {
    const first = await client.profiles.put("guarded", { authenticationProfileContent: "{}" });
    await client.profiles.put("guarded", { authenticationProfileContent: '{"App_ID":"other"}' });
    for (const write of [
      () => client.profiles.put("guarded", { authenticationProfileContent: "{}" }, { ifMatch: first.etag }),
      () =>
        client.profiles.update("guarded", { authenticationProfileContent: "{}" }, { ifMatch: first.etag }),
      () => client.profiles.delete("guarded", { ifMatch: first.etag }),
    ]) {
      const error = (await rejection(write)) as ServiceError;
      expect({ status: error.status, code: error.code }).toEqual({ status: 412, code: "PreconditionFailed" });
    }
    expect((await client.profiles.get("guarded")).authenticationProfileContent).toBe('{"App_ID":"other"}');
  });

  it("a write with the current etag succeeds", async () => {
    const current = await client.profiles.put("matched", { authenticationProfileContent: "{}" });
    const updated = await client.profiles.update(
      "matched",
      { authenticationProfileContent: '{"App_ID":"3"}' },
      { ifMatch: current.etag },
    );
    expect(await client.profiles.delete("matched", { ifMatch: updated.etag })).toBe(true);
  });

  it("getIfChanged answers undefined for the current etag (304) and the profile once it changed", async () => {
    const current = await client.profiles.put("cached", { authenticationProfileContent: "{}" });
    expect(await client.profiles.getIfChanged("cached", current.etag)).toBeUndefined();
    const changed = await client.profiles.put("cached", { authenticationProfileContent: '{"App_ID":"4"}' });
    expect(await client.profiles.getIfChanged("cached", current.etag)).toEqual({
      id: "cached",
      authenticationProfileName: "cached",
      authenticationProfileContent: '{"App_ID":"4"}',
      etag: changed.etag,
      systemData: changed.systemData,
    });
  });
});

describe("errors", () => {
  it("404: ResourceNotFound, with the request id", async () => {
    const error = (await rejection(() => client.profiles.get("never-made"))) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.name).toBe("ServiceError");
    expect({ status: error.status, code: error.code }).toEqual({ status: 404, code: "ResourceNotFound" });
    expect(error.requestId).toEqual(expect.any(String));
    expect(error.message).toMatch(/^ResourceNotFound: /);
  });

  it("400: InvalidRequestContent naming the field as target, with every detail", async () => {
    const error = (await rejection(() =>
      client.profiles.put("bad", { authenticationProfileContent: '{"Password":"x"}' }),
    )) as ServiceError;
    expect({ status: error.status, code: error.code, target: error.target }).toEqual({
      status: 400,
      code: "InvalidRequestContent",
      target: "authenticationProfileContent",
    });
    expect(error.details).toEqual([
      expect.objectContaining({
        target: "authenticationProfileContent",
        message: expect.stringContaining("Password"),
      }),
    ]);
  });

  it("409: QuotaExceeded when the content is over the size quota", async () => {
    const error = (await rejection(() =>
      client.profiles.put("too-big", {
        authenticationProfileContent: JSON.stringify({ a: "x".repeat(300) }),
      }),
    )) as ServiceError;
    expect({ status: error.status, code: error.code, target: error.target }).toEqual({
      status: 409,
      code: "QuotaExceeded",
      target: "authenticationProfileContent",
    });
  });

  it("401: Unauthorized with a wrong key, and the key appears nowhere in the error", async () => {
    const wrongKey = "wrong-key-value-0123456789";
    const error = (await rejection(() =>
      clientFor(host, { key: wrongKey }).profiles.get("warehouse-sso"),
    )) as ServiceError;
    expect({ status: error.status, code: error.code }).toEqual({ status: 401, code: "Unauthorized" });
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(wrongKey);
  });

  it("400: InvalidApiVersionParameter when the client is set to a version the service lacks", async () => {
    const error = (await rejection(() =>
      clientFor(host, { apiVersion: { resources: "2020-01-01" } }).profiles.get("warehouse-sso"),
    )) as ServiceError;
    expect({ status: error.status, code: error.code, target: error.target }).toEqual({
      status: 400,
      code: "InvalidApiVersionParameter",
      target: "api-version",
    });
  });

  it("refuses an endpoint with a query or credentials, without quoting it", () => {
    expect(() => new TwinServiceClient({ endpoint: `${host.baseUrl}/?code=secret-code`, key: "k" })).toThrow(
      /must not carry a query/,
    );
    expect(() => new TwinServiceClient({ endpoint: "not a url", key: "k" })).toThrow(TypeError);
    expect(() => new TwinServiceClient({ endpoint: host.baseUrl, key: "" })).toThrow(/key/);
  });
});

describe("paging", () => {
  const names = Array.from({ length: 7 }, (_, index) => `paged-${index}`);
  let pagingClient: TwinServiceClient;
  let pagingHost: TestHost;
  beforeAll(async () => {
    // A host of its own, so the list holds exactly these profiles.
    pagingHost = await startTestHost();
    pagingClient = clientFor(pagingHost);
    for (const name of names) await pagingClient.profiles.put(name, { authenticationProfileContent: "{}" });
  });
  afterAll(() => pagingHost.stop());

  it("listPage returns one page and a nextLink; following it reaches the rest", async () => {
    const first = await pagingClient.profiles.listPage({ top: 3 });
    expect(first.value).toHaveLength(3);
    expect(new URL(first.nextLink as string).searchParams.get("$skipToken")).toEqual(expect.any(String));
    const second = await pagingClient.profiles.listPage({ top: 3, nextLink: first.nextLink as string });
    expect(second.value).toHaveLength(3);
    expect(second.value.map((p) => p.id)).not.toContain(first.value[0]?.id);
  });

  it("list iterates every profile across pages; byPage yields the pages", async () => {
    const all = await collect(pagingClient.profiles.list({ top: 3 }));
    expect(all.map((profile) => profile.id).sort()).toEqual([...names].sort());
    const pages = await collect(pagingClient.profiles.list({ top: 3 }).byPage());
    expect(pages.map((page) => page.value.length)).toEqual([3, 3, 1]);
    expect(pages[2]?.nextLink).toBeUndefined();
  });

  it("refuses to follow a nextLink to another host with the key", async () => {
    await expect(
      pagingClient.profiles.listPage({ nextLink: "http://127.0.0.2:9/authenticationProfiles?$skipToken=x" }),
    ).rejects.toThrow(/outside the service endpoint/);
  });
});
