import { readmeExampleTests } from "../../test/docs/readme-examples";

// pulumi/README.md's TypeScript examples, each in a new project under tsc --init's defaults, with
// two TypeScripts (test/docs/readme-examples.ts), the package packed from this folder's sources and
// its dependencies linked from this folder's install.

// The README installs the program's own @pulumi/pulumi.
readmeExampleTests({
  page: "pulumi/README.md",
  package: "@twin-resource-service/pulumi",
  beside: ["@pulumi/pulumi"],
});
