import { type BlobItem, ContainerClient } from "@azure/storage-blob";
import { parseCommandLine } from "./cli-options";
import { stackOrGivenValue } from "./running-stack";
import { describeFailure, StartupError } from "./startup-error";

/**
 * `npm run dead-letters -- [--wait S]`: lists the dead-letter blobs in the container of
 * DEAD_LETTER_URL, with metadata and body: the Azurite container of the stack `npm start` runs
 * (from `.local/local.env`, whatever port it took; refused when no stack runs), or a container
 * of your own (DEAD_LETTER_URL in the environment naming a host other than loopback).
 * `--wait S` waits up to S seconds for the first one, and fails if none comes.
 */
const USAGE = "npm run dead-letters -- [--wait SECONDS]";

function urlHost(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).hostname : undefined;
}

async function container(): Promise<ContainerClient> {
  const { value, stack } = await stackOrGivenValue("DEAD_LETTER_URL", urlHost);
  if (value === undefined) {
    throw new StartupError(
      `${stack?.file ?? "The environment"} has no DEAD_LETTER_URL: the stack at ${stack?.baseUrl} runs without Azurite (its storage is configured). Set DEAD_LETTER_URL to a container SAS URL of that account with read and list permission.`,
    );
  }
  return new ContainerClient(value);
}

async function listAll(client: ContainerClient): Promise<BlobItem[]> {
  const blobs: BlobItem[] = [];
  for await (const blob of client.listBlobsFlat({ includeMetadata: true })) blobs.push(blob);
  return blobs;
}

async function main(): Promise<void> {
  const { positionals, numbers } = parseCommandLine(process.argv.slice(2), ["wait"], USAGE);
  if (positionals.length > 0)
    throw new StartupError(`Unexpected argument ${positionals[0]}.\nUsage: ${USAGE}`);
  const client = await container();
  const deadline = Date.now() + (numbers.wait ?? 0) * 1000;
  let blobs = await listAll(client);
  while (blobs.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    blobs = await listAll(client);
  }
  for (const blob of blobs) {
    const body = await client.getBlobClient(blob.name).downloadToBuffer();
    console.log(blob.name);
    console.log(`  metadata  ${JSON.stringify(blob.metadata ?? {})}`);
    console.log(`  body      ${body.toString("utf8")}`);
  }
  console.log(`${blobs.length} dead letter${blobs.length === 1 ? "" : "s"} in ${client.containerName}.`);
  if (blobs.length === 0 && numbers.wait !== undefined) {
    console.error(`None arrived within ${numbers.wait} s.`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(describeFailure(error));
  process.exitCode = 1;
});
