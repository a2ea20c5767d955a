import { HttpRequest, InvocationContext } from "@azure/functions";
import { loadConfig } from "../../src/config";
import { createServices } from "../../src/services";
import { handlerOnFirstRequest } from "../../src/triggers/handlers-on-first-request";
import { routeTable } from "../../src/triggers/routes";

const services = createServices(
  loadConfig({
    COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
    COSMOS_KEY: "key",
    AzureWebJobsStorage: "UseDevelopmentStorage=true",
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
    AUTH_MODE: "keys",
  }),
);

function row(name: string) {
  const found = routeTable.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no row ${name}`);
  return found;
}

describe("handlerOnFirstRequest", () => {
  it("loads a row's operation with its first request, not before, and once", async () => {
    const loads: string[] = [];
    const counted = {
      ...row("openapi"),
      load: () => {
        loads.push("openapi");
        return row("openapi").load();
      },
    };
    const handler = handlerOnFirstRequest(counted, () => services);
    expect(loads).toEqual([]);
    const request = () =>
      new HttpRequest({ method: "GET", url: "https://x/openapi.json", headers: { host: "x" } });
    expect((await handler(request(), new InvocationContext())).status).toBe(200);
    expect((await handler(request(), new InvocationContext())).status).toBe(200);
    expect(loads).toEqual(["openapi"]);
  });

  it("answers with the row's own handler", async () => {
    const patch = await handlerOnFirstRequest(row("authenticationProfiles-patch"), () => services)(
      new HttpRequest({
        method: "PATCH",
        url: "https://x/authenticationProfiles/a?api-version=1999-01-01",
        params: { authenticationProfileName: "a" },
      }),
      new InvocationContext(),
    );
    expect(patch.status).toBe(400);
    expect(JSON.stringify((patch as { jsonBody?: unknown }).jsonBody)).toContain(
      "InvalidApiVersionParameter",
    );
  });
});
