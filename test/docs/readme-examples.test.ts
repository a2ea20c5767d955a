import { readmeExampleTests } from "./readme-examples";

// client/README.md's TypeScript examples, each in a new project under tsc --init's defaults, with two
// TypeScripts (readme-examples.ts). The Pulumi package's README: pulumi/test/readme-examples.test.ts.

// The client's README installs @azure/identity for DefaultAzureCredential.
readmeExampleTests({
  page: "client/README.md",
  package: "@twin-resource-service/client",
  beside: ["@azure/identity"],
});
