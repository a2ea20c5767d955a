import { EXAMPLE_SYSTEM_DATA } from "../common/system-data";
import type { EndpointPatchInput, EndpointPutInput, QueueEndpoint } from "./endpoint-schema";

/** The examples of the API description (made-up keys); a test validates each against its schema. */
const instance =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/twins-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/factory-twins";
const connection = (key: string, rule: string) =>
  `Endpoint=sb://contoso-twins.servicebus.windows.net/;SharedAccessKeyName=${rule};SharedAccessKey=${key};EntityPath=twin-events`;

export const endpointExamples: { put: EndpointPutInput; resource: QueueEndpoint; patch: EndpointPatchInput } =
  {
    put: {
      queuePrimaryConnectionString: connection("ZXhhbXBsZS1wcmltYXJ5LWtleQ==", "send"),
      queueSecondaryConnectionString: connection("ZXhhbXBsZS1zZWNvbmRhcnkta2V5", "send-2"),
      deadLetterStorageSecret:
        "https://contosodeadletters.blob.core.windows.net/dead-letters?sv=2022-11-02&sp=cw&se=2027-01-01&sig=ZXhhbXBsZQ%3D%3D",
    },
    resource: {
      id: `${instance}/endpoints/orders`,
      name: "orders",
      twinsInstanceId: instance,
      authenticationType: "KeyBased",
      queuePrimaryConnectionString: connection("***", "send"),
      queueSecondaryConnectionString: connection("***", "send-2"),
      deadLetterStorageSecret: "https://contosodeadletters.blob.core.windows.net/dead-letters?***",
      systemData: EXAMPLE_SYSTEM_DATA,
    },
    patch: { deadLetterStorageSecret: null },
  };
