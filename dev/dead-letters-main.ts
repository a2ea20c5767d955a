import { type BlobItem, ContainerClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import { type CommandSpec, commandLine, exitCodeOf } from "./cli-options";
import { localTlsFiles } from "./local-tls";
import { stackOrGivenValue } from "./running-stack";
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY } from "./stand-ins/azurite";
import { trustLocalCertificate } from "./stand-ins/azurite-https";
import { describeFailure, StartupError } from "./startup-error";

/**
 * `npm run dead-letters -- [--wait S] [--identity]`: lists the dead-letter blobs in the container
 * of DEAD_LETTER_URL, with metadata and body: the Azurite container of the stack `npm start` runs
 * (from `.local/local.env`, whatever port it took; refused when no stack runs), or a container
 * of your own (DEAD_LETTER_URL in the environment naming a host other than loopback).
 * `--identity` reads the stack's container for IdentityBased endpoints instead
 * (DEAD_LETTER_CONTAINER_URI, HTTPS with the local certificate), with Azurite's account key.
 * `--wait S` waits up to S seconds for the first one, and fails if none comes.
 */
const COMMAND = {
  command: "npm run dead-letters",
  summary:
    "Lists the dead-letter blobs, with metadata and body, in the running stack's Azurite container\n(or the container DEAD_LETTER_URL names).",
  numbers: {
    wait: {
      placeholder: "SECONDS",
      description: "wait up to SECONDS seconds for the first one; fails if none comes",
    },
  },
  flags: {
    identity: {
      description: "the stack's container for IdentityBased endpoints (DEAD_LETTER_CONTAINER_URI) instead",
    },
  },
  examples: ["npm run dead-letters", "npm run dead-letters -- --wait 30 --identity"],
} satisfies CommandSpec<"wait", "identity">;

function urlHost(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).hostname : undefined;
}

/** The local HTTPS container IdentityBased endpoints dead-letter to: a local tool may use Azurite's well-known key. */
async function identityContainer(): Promise<ContainerClient> {
  const { value, stack } = await stackOrGivenValue("DEAD_LETTER_CONTAINER_URI", urlHost);
  if (value === undefined || urlHost(value) !== "localhost") {
    throw new StartupError(
      `${stack?.file ?? "The environment"} names no local DEAD_LETTER_CONTAINER_URI: --identity reads the container of a stack that runs Azurite.`,
    );
  }
  return new ContainerClient(
    value,
    new StorageSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY),
    trustLocalCertificate(localTlsFiles().certFile),
  );
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
  const { numbers, flags } = commandLine(COMMAND);
  const client = flags.identity ? await identityContainer() : await container();
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
  process.exitCode = exitCodeOf(error);
});
