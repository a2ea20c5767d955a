import { SAMPLE_ASSESSMENTS } from "../dev/seed/sample-assessments";
import { localDeadLetterSasUrl } from "../dev/stand-ins/dead-letter-sas";
import { type AssessmentPath, assessmentId } from "../src/assessments/assessment-path";
import type { AssessmentPut } from "../src/assessments/assessment-schema";
import { TWINS_INSTANCE_PATH } from "../src/common/arm-path";
import type { WatchedInstance } from "./delivery-watch";
import type { LoopbackClient } from "./http-client";
import { LOAD_FUNCTION_KEY, LOAD_MASTER_KEY } from "./keys";
import type { LoadStack } from "./stack";

/**
 * Everything the mix draws names from; made before the clients start. Plain data: it is handed
 * to the load worker thread.
 */
export interface LoadFixtures {
  profileNames: string[];
  /** Instances whose endpoints the mix creates and deletes (and whose events nobody checks). */
  churn: { instance: string; endpointNames: string[] }[];
  /** Instances with fixed endpoints and subscribers: every event accepted for them is checked. */
  watched: WatchedInstance[];
  /** The Service Bus stand-in's connection string, without an EntityPath. */
  serviceBus: string;
  /** A dead-letter SAS URL for an Azurite container, for some endpoint writes. */
  deadLetterUrl: string;
  /** Seeded with the master key before the run; the mix only reads them. */
  assessments: AssessmentPath[];
  /** Written and deleted by the mix with the master key. */
  scratchAssessments: AssessmentPath[];
  assessmentBody: AssessmentPut;
}

export interface FixtureSizes {
  profiles: number;
  churnInstances: number;
  endpointsPerChurnInstance: number;
  watchedInstances: number;
  endpointsPerWatchedInstance: number;
}

export function instancePath(name: string): string {
  return TWINS_INSTANCE_PATH.id({
    subscriptionId: "00000000-0000-0000-0000-00000000cccc",
    resourceGroupName: "load",
    instanceName: name,
  });
}

export function endpointBody(fixtures: LoadFixtures, topic: string, deadLetter: boolean): string {
  const connection = `${fixtures.serviceBus};EntityPath=${topic}`;
  return JSON.stringify({
    queuePrimaryConnectionString: connection,
    queueSecondaryConnectionString: connection,
    ...(deadLetter && { deadLetterStorageSecret: fixtures.deadLetterUrl }),
  });
}

async function put(client: LoopbackClient, path: string, body: string, key: string): Promise<void> {
  const { status, body: text } = await client.request("PUT", path, {
    headers: { "x-functions-key": key, "content-type": "application/json" },
    body,
    keepBody: () => true,
  });
  if (status !== 200 && status !== 201) throw new Error(`setup PUT ${path}: ${status} ${text}`);
}

/**
 * Seeds what the mix reads: the sample assessments (through the master-key PUT, as the producing
 * system writes them), the watched instances' endpoints, and every profile of the pool, so reads
 * start out finding something.
 */
export async function prepareFixtures(
  stack: LoadStack,
  client: LoopbackClient,
  sizes: FixtureSizes,
): Promise<LoadFixtures> {
  const first = SAMPLE_ASSESSMENTS[0];
  if (first === undefined) throw new Error("no sample assessments");
  const fixtures: LoadFixtures = {
    profileNames: Array.from({ length: sizes.profiles }, (_, i) => `load-profile-${i}`),
    churn: Array.from({ length: sizes.churnInstances }, (_, i) => ({
      instance: instancePath(`load-churn-${i}`),
      endpointNames: Array.from({ length: sizes.endpointsPerChurnInstance }, (_, j) => `churn-${j}`),
    })),
    watched: Array.from({ length: sizes.watchedInstances }, (_, i) => ({
      instance: instancePath(`load-watched-${i}`),
      topics: Array.from({ length: sizes.endpointsPerWatchedInstance }, (_, j) => `load-watched-${i}-${j}`),
    })),
    serviceBus: stack.serviceBusConnectionString(),
    deadLetterUrl: await localDeadLetterSasUrl(stack.blobEndpoint, "load-dead-letters"),
    assessments: SAMPLE_ASSESSMENTS.map((sample) => sample.path),
    scratchAssessments: Array.from({ length: 4 }, (_, i) => ({
      ...first.path,
      projectName: "load-scratch",
      assessmentName: `scratch-${i}`,
    })),
    assessmentBody: first.body,
  };
  for (const { path, body } of SAMPLE_ASSESSMENTS) {
    await put(client, assessmentId(path), JSON.stringify(body), LOAD_MASTER_KEY);
  }
  for (const { instance, topics } of fixtures.watched) {
    for (const topic of topics) {
      await put(
        client,
        `${instance}/endpoints/${topic}`,
        endpointBody(fixtures, topic, false),
        LOAD_FUNCTION_KEY,
      );
    }
  }
  for (const name of fixtures.profileNames) {
    await put(
      client,
      `/authenticationProfiles/${name}`,
      JSON.stringify({ authenticationProfileContent: JSON.stringify({ App_ID: name }) }),
      LOAD_FUNCTION_KEY,
    );
  }
  return fixtures;
}
