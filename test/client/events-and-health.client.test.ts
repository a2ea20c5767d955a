import { ServiceError, TwinServiceClient } from "../../client";
import { startTestHost, type TestHost } from "../support/test-host";
import { clientFor, instanceId, rejection } from "./fixtures";

// Event ingest (docs/api.md) and readiness through the client.
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

const event = (id: string) => ({
  id,
  source: "/factory/line-1",
  specversion: "1.0" as const,
  type: "Twin.Update",
  data: { temperature: 21.5 },
});

describe("events.ingest", () => {
  it("accepts one event (202)", async () => {
    expect(await clientFor(host).events.ingest(instanceId("factory"), event("evt-1"))).toEqual({
      accepted: 1,
    });
  });

  it("accepts a batch (202)", async () => {
    const batch = [event("evt-2"), event("evt-3"), event("evt-4")];
    expect(await clientFor(host).events.ingest(instanceId("factory"), batch)).toEqual({ accepted: 3 });
  });

  it("a bad event is a 400 whose target is the event's index and field", async () => {
    const bad = { ...event("evt-5"), specversion: "0.3" } as unknown as ReturnType<typeof event>;
    const error = (await rejection(() =>
      clientFor(host).events.ingest(instanceId("factory"), [event("evt-6"), bad]),
    )) as ServiceError;
    expect({ status: error.status, code: error.code, target: error.target }).toEqual({
      status: 400,
      code: "InvalidRequestContent",
      target: "[1].specversion",
    });
  });

  it("a wrong key is a 401", async () => {
    const error = (await rejection(() =>
      clientFor(host, { key: "not-the-key" }).events.ingest(instanceId("factory"), event("evt-7")),
    )) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.status).toBe(401);
  });
});

describe("health", () => {
  it("answers the readiness report, without needing a key", async () => {
    const client = new TwinServiceClient({ endpoint: host.baseUrl, key: "any-key-is-not-sent" });
    expect(await client.health()).toEqual({ status: "ok", checks: expect.any(Object) });
  });
});
