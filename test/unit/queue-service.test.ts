import type { AppConfig } from "../../src/config";
import { createQueueServiceClient } from "../../src/store/queue-service";

// Which queue service the service's own client talks to (no request is made here). infra/ sets
// AzureWebJobsStorage__queueServiceUri from the account's endpoints: in a sovereign cloud the host
// suffix is not the public cloud's, and must come from there, not be made up from the account name.
function client(settings: Partial<AppConfig>) {
  return createQueueServiceClient({ TWIN_EVENTS_QUEUE: "twin-events", ...settings } as AppConfig);
}

describe("createQueueServiceClient", () => {
  it.each([
    ["US Government", "https://sttwins.queue.core.usgovcloudapi.net/"],
    ["China", "https://sttwins.queue.core.chinacloudapi.cn/"],
    ["a custom domain, without the trailing slash", "https://queues.contoso.example"],
  ])("uses the queue service URI as given (%s)", (_cloud, uri) => {
    const queues = client({ AzureWebJobsStorage__queueServiceUri: uri });
    expect(new URL(queues.url).origin).toBe(new URL(uri).origin);
    expect(queues.getQueueClient("twin-events").url).toBe(`${uri.replace(/\/$/, "")}/twin-events`);
  });

  it("prefers the URI to the account name when both are set", () => {
    const queues = client({
      AzureWebJobsStorage__accountName: "sttwins",
      AzureWebJobsStorage__queueServiceUri: "https://sttwins.queue.core.usgovcloudapi.net/",
    });
    expect(new URL(queues.url).host).toBe("sttwins.queue.core.usgovcloudapi.net");
  });

  it("derives the public cloud's URI from the account name alone, as the host does", () => {
    expect(new URL(client({ AzureWebJobsStorage__accountName: "sttwins" }).url).host).toBe(
      "sttwins.queue.core.windows.net",
    );
  });

  it("takes a connection string first (local runs)", () => {
    const queues = client({
      AzureWebJobsStorage: "UseDevelopmentStorage=true",
      AzureWebJobsStorage__queueServiceUri: "https://sttwins.queue.core.usgovcloudapi.net/",
    });
    expect(new URL(queues.url).host).toBe("127.0.0.1:10001");
  });
});
