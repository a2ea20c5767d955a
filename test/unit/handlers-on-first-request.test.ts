import { HttpRequest, InvocationContext } from "@azure/functions";
import { loadConfig } from "../../src/config";
import { createServices } from "../../src/services";
import { handlerOnFirstRequest } from "../../src/triggers/handlers-on-first-request";

const services = createServices(
  loadConfig({
    COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
    COSMOS_KEY: "key",
    AzureWebJobsStorage: "UseDevelopmentStorage=true",
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
    AUTH_MODE: "keys",
  }),
);

describe("handlerOnFirstRequest", () => {
  it("refuses a name the route table does not have, when asked, naming it", async () => {
    const handler = handlerOnFirstRequest("authenticationProfiles-GET", () => services);
    await expect(
      handler(new HttpRequest({ method: "GET", url: "https://x/health" }), new InvocationContext()),
    ).rejects.toThrow("the route table has no route named 'authenticationProfiles-GET'");
  });

  it("answers with the named route's handler, each name its own", async () => {
    const request = () =>
      new HttpRequest({ method: "GET", url: "https://x/openapi.json", headers: { host: "x" } });
    const openapi = await handlerOnFirstRequest("openapi", () => services)(
      request(),
      new InvocationContext(),
    );
    expect(openapi.status).toBe(200);
    const patch = await handlerOnFirstRequest("authenticationProfiles-patch", () => services)(
      new HttpRequest({
        method: "PATCH",
        url: "https://x/authenticationProfiles/a?api-version=1999-01-01",
        params: { authenticationProfileName: "a" },
      }),
      new InvocationContext(),
    );
    expect(patch.status).toBe(400);
  });
});
