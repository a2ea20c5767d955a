import { randomBytes } from "node:crypto";
import { ContainerClient } from "@azure/storage-blob";
import { REDELIVERED_METADATA } from "../../src/delivery/dead-letter-claims";
import { DeadLetterMarks } from "../../src/delivery/dead-letter-mark";
import { deadLetterBlobName } from "../../src/delivery/dead-letter-name";
import { type DeadLetterReason, DeadLetterWriter } from "../../src/delivery/dead-letter-writer";
import type { DeliveryEndpoint } from "../../src/endpoints/endpoint-service";
import type { CloudEvent } from "../../src/events/cloud-event";
import { cloudEvent, deadLetterEndpoint, deadLetterUrl, listBlobs } from "../support/delivery-kit";

// The dead-letter writer against a container in Azurite, through a SAS URL as in production.
const AT = new Date("2026-05-06T07:08:09Z");
const WHY: DeadLetterReason = { reason: "TtlExpired", attempts: 4, lastError: "MessagingError: gone" };

const MARKS = new DeadLetterMarks(randomBytes(32));

function endpointWith(sasUrl: string, instance?: string): DeliveryEndpoint {
  return deadLetterEndpoint(sasUrl, "writer-ep", instance);
}

function fromSource(event: CloudEvent, source: string): CloudEvent {
  return { ...event, source };
}

it("writes a taken id's next event to {eventId}.1.json, leaving the blob that was there as it was", async () => {
  const sasUrl = await deadLetterUrl();
  const first = deadLetterBlobName("writer-ep", "evt/1", AT);
  // Someone else's blob at the name already, without the writer's metadata.
  await new ContainerClient(sasUrl).getBlockBlobClient(first).upload("{}", 2);
  const writer = new DeadLetterWriter(MARKS);

  const place = await writer.write(endpointWith(sasUrl), cloudEvent("evt/1"), WHY, AT);

  expect(place.blobName).toBe(deadLetterBlobName("writer-ep", "evt/1", AT, 1));
  expect(place.container).toBe(new URL(sasUrl).pathname.split("/").pop());
  const blobs = await listBlobs(sasUrl);
  expect(blobs.find((blob) => blob.name === first)?.body).toEqual({});
  expect(blobs.find((blob) => blob.name === place.blobName)).toMatchObject({
    body: cloudEvent("evt/1"),
    metadata: { deadletterreason: "TtlExpired", deliveryattempts: "4", lasterror: "MessagingError: gone" },
  });
});

it("writes the very same event twice (concurrently or on a retry) once, and one id from three sources thrice", async () => {
  const sasUrl = await deadLetterUrl();
  const endpoint = endpointWith(sasUrl);
  const writer = new DeadLetterWriter(MARKS);
  const event = cloudEvent("dup");
  const others = [fromSource(event, "/other-1"), fromSource(event, "/other-2")];

  const places = await Promise.all(
    [event, event, ...others].map((each) => writer.write(endpoint, each, WHY, AT)),
  );
  const again = await writer.write(endpoint, event, WHY, AT);

  expect(places[0]).toEqual(places[1]);
  expect(again).toEqual(places[0]);
  const blobs = await listBlobs(sasUrl);
  expect(blobs.map((blob) => blob.name).sort()).toEqual(
    [0, 1, 2].map((copy) => deadLetterBlobName("writer-ep", "dup", AT, copy)).sort(),
  );
  expect(blobs.map((blob) => (blob.body as CloudEvent).source).sort()).toEqual([
    "/other-1",
    "/other-2",
    "/twins/test",
  ]);
});

it("brings the record of an event dead-lettered again up to date and clears its redelivered mark", async () => {
  const sasUrl = await deadLetterUrl();
  const endpoint = endpointWith(sasUrl);
  const writer = new DeadLetterWriter(MARKS);
  const event = cloudEvent("again");
  const place = await writer.write(endpoint, event, WHY, AT);
  const blob = new ContainerClient(sasUrl).getBlobClient(place.blobName);
  const first = (await blob.getProperties()).metadata ?? {};
  await blob.setMetadata({ ...first, [REDELIVERED_METADATA]: new Date().toISOString() });

  const later = new Date(AT.getTime() + 60_000);
  const again = await writer.write(
    endpoint,
    event,
    { reason: "MaxDeliveryAttemptsExceeded", attempts: 2, lastError: "still down" },
    later,
  );

  expect(again).toEqual(place);
  const [stored] = await listBlobs(sasUrl);
  expect(stored?.metadata).toEqual({
    ...first,
    deadletterreason: "MaxDeliveryAttemptsExceeded",
    deliveryattempts: "2",
    lasterror: "still down",
    deadletteredat: later.toISOString(),
  });
  expect(stored?.metadata[REDELIVERED_METADATA]).toBeUndefined();
});

it("never takes another instance's dead letter of the same event, in a shared container, for its own", async () => {
  const sasUrl = await deadLetterUrl();
  const writer = new DeadLetterWriter(MARKS);
  const event = cloudEvent("shared");
  const mine = endpointWith(sasUrl);
  const theirs = endpointWith(
    sasUrl,
    "/subscriptions/s/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/b",
  );

  const places = [await writer.write(theirs, event, WHY, AT), await writer.write(mine, event, WHY, AT)];

  expect(places.map((place) => place.blobName)).toEqual(
    [0, 1].map((copy) => deadLetterBlobName("writer-ep", "shared", AT, copy)),
  );
  const blobs = await listBlobs(sasUrl);
  const owner = (name: string) => blobs.find((blob) => blob.name === name)?.metadata.endpointid;
  expect(places.map((place) => owner(place.blobName))).toEqual([
    theirs.id.toLowerCase(),
    mine.id.toLowerCase(),
  ]);
});
