import { ServiceError, type TwinServiceClient } from "../../client";
import { clientFor, rejection, SAMPLE_PROFILE_CONTENT } from "../../test/client/fixtures";
import { FUNCTION_KEY, startTestHost, type TestHost } from "../../test/support/test-host";
import { AuthenticationProfileProvider } from "../src/authentication-profile-provider";
import { ENVIRONMENT } from "../src/service-connection";

// The AuthenticationProfile provider's operations, called directly against the local stack.
let host: TestHost;
let client: TwinServiceClient;
let connection: { serviceEndpoint: string; serviceKey: string };
const provider = new AuthenticationProfileProvider();
beforeAll(async () => {
  host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "1000" });
  client = clientFor(host);
  connection = { serviceEndpoint: host.baseUrl, serviceKey: FUNCTION_KEY };
});
afterAll(() => host.stop());

const inputs = (name: string, content = SAMPLE_PROFILE_CONTENT) => ({
  authenticationProfileName: name,
  authenticationProfileContent: content,
  ...connection,
});

describe("create", () => {
  it("creates the profile; the id is its name and the outputs are the seed's fields", async () => {
    const created = await provider.create(inputs("pulumi-made"));
    expect(created).toEqual({
      id: "pulumi-made",
      outs: { ...inputs("pulumi-made") },
    });
    expect((await client.profiles.get("pulumi-made")).authenticationProfileContent).toBe(
      SAMPLE_PROFILE_CONTENT,
    );
  });

  it("fails rather than take over a profile that exists (412)", async () => {
    await client.profiles.put("already-there", { authenticationProfileContent: "{}" });
    const error = (await rejection(() => provider.create(inputs("already-there")))) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.status).toBe(412);
    expect((await client.profiles.get("already-there")).authenticationProfileContent).toBe("{}");
  });

  it("with an import id, adopts the existing profile when the program matches it", async () => {
    await client.profiles.put("Adopted", { authenticationProfileContent: SAMPLE_PROFILE_CONTENT });
    const adopted = await provider.create({ ...inputs("adopted"), importId: "adopted" });
    expect(adopted.id).toBe("Adopted");
    expect(adopted.outs.authenticationProfileName).toBe("Adopted");
  });

  it("with an import id, refuses a profile that differs from the program, changing nothing", async () => {
    await client.profiles.put("different", { authenticationProfileContent: "{}" });
    await expect(provider.create({ ...inputs("different"), importId: "different" })).rejects.toThrow(
      /differs from the program in authenticationProfileContent/,
    );
    await expect(provider.create({ ...inputs("other"), importId: "different" })).rejects.toThrow(
      /another profile/,
    );
    expect((await client.profiles.get("different")).authenticationProfileContent).toBe("{}");
  });

  it("explains a missing connection without quoting anything", async () => {
    const saved = { ...process.env };
    delete process.env[ENVIRONMENT.endpoint];
    delete process.env[ENVIRONMENT.key];
    try {
      await expect(
        provider.create({ authenticationProfileName: "x", authenticationProfileContent: "{}" }),
      ).rejects.toThrow(/twin-resource-service:endpoint and twin-resource-service:key/);
    } finally {
      process.env = saved;
    }
  });
});

describe("read", () => {
  it("reads from the id alone (refresh, get), with the connection from the environment", async () => {
    await client.profiles.put("Read-Me", { authenticationProfileContent: SAMPLE_PROFILE_CONTENT });
    const saved = { ...process.env };
    process.env[ENVIRONMENT.endpoint] = host.baseUrl;
    process.env[ENVIRONMENT.key] = FUNCTION_KEY;
    try {
      expect(await new AuthenticationProfileProvider().read("read-me")).toEqual({
        id: "Read-Me",
        props: { authenticationProfileName: "Read-Me", authenticationProfileContent: SAMPLE_PROFILE_CONTENT },
      });
    } finally {
      process.env = saved;
    }
  });

  it("reads the connection from the stack config handed to configure", async () => {
    const configured = new AuthenticationProfileProvider();
    const config: Record<string, string> = {
      "twin-resource-service:endpoint": host.baseUrl,
      "twin-resource-service:key": FUNCTION_KEY,
    };
    await configured.configure({
      config: { get: (key) => config[key], require: (key) => config[key] as string },
    });
    expect((await configured.read("Read-Me")).id).toBe("Read-Me");
  });

  it("sees a change made outside Pulumi, and keeps the connection inputs", async () => {
    const created = await provider.create(inputs("drifting", "{}"));
    await client.profiles.update("drifting", { authenticationProfileContent: '{"App_ID":"changed"}' });
    const read = await provider.read(created.id, created.outs);
    expect(read.props).toEqual({ ...inputs("drifting", '{"App_ID":"changed"}') });
  });

  it("answers no id for a profile deleted outside Pulumi, so Pulumi drops it", async () => {
    const created = await provider.create(inputs("vanishing"));
    await client.profiles.delete("vanishing");
    expect(await provider.read(created.id, created.outs)).toEqual({});
  });
});

describe("update and delete", () => {
  it("update writes the content in place", async () => {
    const created = await provider.create(inputs("updatable", "{}"));
    const updated = await provider.update(created.id, created.outs, inputs("updatable", '{"App_ID":"2"}'));
    expect(updated.outs.authenticationProfileContent).toBe('{"App_ID":"2"}');
    expect((await client.profiles.get("updatable")).authenticationProfileContent).toBe('{"App_ID":"2"}');
  });

  it("update does not recreate a profile deleted meanwhile (412)", async () => {
    const created = await provider.create(inputs("gone-before-update"));
    await client.profiles.delete("gone-before-update");
    const error = (await rejection(() =>
      provider.update(created.id, created.outs, inputs("gone-before-update", "{}")),
    )) as ServiceError;
    expect(error.status).toBe(412);
    await expect(client.profiles.get("gone-before-update")).rejects.toMatchObject({ status: 404 });
  });

  it("delete removes the profile, and does not fail when it is already gone", async () => {
    const created = await provider.create(inputs("deletable"));
    await provider.delete(created.id, created.outs);
    await expect(client.profiles.get("deletable")).rejects.toMatchObject({ status: 404 });
    await expect(provider.delete(created.id, created.outs)).resolves.toBeUndefined();
  });
});
