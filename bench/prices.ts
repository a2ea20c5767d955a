/**
 * The prices the cost part multiplies its measured quantities by: pay-as-you-go USD, each with
 * where it was read and when. Azure's own pricing pages fill their figures in with a script, so the
 * figures are the Retail Prices API's (prices.azure.com) as quoted in public sources, or a
 * Microsoft document's, as said for each. Regions differ: re-read them for yours.
 */
export interface Price {
  usd: number;
  /** What one `usd` buys. */
  per: string;
  source: string;
  /** When the source shows it was read or written. */
  read: string;
}

const RETAIL = "Azure Retail Prices API (prices.azure.com) as quoted in public sources";

export const PRICES = {
  flexExecution: {
    usd: 0.4 / 1e6,
    per: "on-demand execution (Flex Consumption, $0.000004 per 10), East US",
    source: RETAIL,
    read: "2026-07-30",
  },
  flexGbSecond: {
    usd: 0.000026,
    per: "GB-s of on-demand execution time (Flex Consumption), East US; Southeast Asia $0.000037",
    source: RETAIL,
    read: "2026-07-30",
  },
  logAnalyticsGb: {
    usd: 2.3,
    per: "GB (10^9 bytes) ingested, Analytics Logs pay-as-you-go, West US 2 (the first 5 GB a month per billing account free)",
    source: `${RETAIL}; the same figure in learn.microsoft.com/azure/azure-monitor/logs/cost-logs (a query's example price)`,
    read: "2026-08-27",
  },
  cosmosRu: {
    usd: 0.25 / 1e6,
    per: "request unit, Cosmos DB serverless",
    source:
      "learn.microsoft.com/azure/cosmos-db/throughput-serverless (worked example, $0.25 per million RUs, 'for demonstration purposes')",
    read: "2020-08-19 (ms.date)",
  },
  queueOperation: {
    usd: 0.004 / 1e4,
    per: "queue operation, Storage GPv2 LRS, Class 1 and Class 2 alike",
    source:
      "a copy of azure.microsoft.com/pricing/details/storage/queues (undated), agreeing with a Retail Prices API fixture",
    read: "undated",
  },
  adtMessage: {
    usd: 1.3 / 1e6,
    per: "message routed, Azure Digital Twins, West Europe",
    source: `${RETAIL} (meter Standard Message, $0.0013 per 1K, effective 2020-12-01)`,
    read: "2026-07-17",
  },
  adtOperation: {
    usd: 3.25 / 1e6,
    per: "API operation, Azure Digital Twins, West Europe",
    source: `${RETAIL} (meter Standard Operations, $0.00325 per 1K, effective 2020-12-01)`,
    read: "2026-07-17",
  },
} satisfies Record<string, Price>;

/** Flex Consumption's monthly free grant per subscription, on-demand only (the pricing page, as quoted 2026-10-02). */
export const FLEX_FREE_GRANT = { executions: 250_000, gbSeconds: 100_000 };
