import { snippetTests } from "../../test/docs/snippets";

// Every TypeScript block of pulumi/README.md compiles against the Pulumi package as `npm pack` packs
// it, installed in an empty project with its dependencies from this folder's install
// (test/docs/snippets.ts).

snippetTests({
  pages: ["pulumi/README.md"],
  withTypeScript: ["pulumi/README.md"],
  packages: [{ name: "@twin-resource-service/pulumi", exported: "QueueEndpoint" }],
});
