import { documentationPages } from "./doc-blocks";
import { snippetTests } from "./snippets";

// Every TypeScript block of the README, docs/ and client/README.md compiles against the client as
// `npm pack` packs it, installed in an empty project (snippets.ts). pulumi/README.md's blocks:
// pulumi/test/readme-snippets.test.ts.

snippetTests({
  pages: documentationPages(),
  withTypeScript: ["README.md", "client/README.md"],
  packages: [{ name: "@twin-resource-service/client", exported: "TwinServiceClient" }],
  // client/README.md installs @azure/identity for DefaultAzureCredential.
  beside: ["@azure/identity"],
});
