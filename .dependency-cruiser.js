/**
 * The layering rules `npm run check` holds the code to (dependency-cruiser): no import cycles,
 * type-only imports included; only http/ (and the Functions entry points) know about HTTP; the
 * product never reaches into the local-only code, tests, benchmarks or load scripts.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "A cycle, type-only or not, ties modules that should be understood one at a time.",
      from: {},
      to: { circular: true },
    },
    {
      name: "domain-free-of-http",
      severity: "error",
      comment:
        "Services, stores and delivery speak in domain terms; http/ turns requests into calls on them. " +
        "triggers/ is the table of what the entry points register (routes and queue functions).",
      from: { path: "^src/", pathNot: "^src/(http|triggers)/" },
      to: { path: "^src/http/" },
    },
    {
      name: "product-free-of-local-code",
      severity: "error",
      comment: "src/ and functions/ ship to Azure; dev/, test/, bench/, load/ and tools/ do not.",
      from: { path: "^(src|functions)/" },
      to: { path: "^(dev|test|bench|load|pulumi|tools)/" },
    },
    {
      name: "zod-through-common",
      severity: "error",
      comment:
        "The product imports zod through src/common/zod.ts, which puts the stand-in for zod's locales " +
        "index in the module cache before zod first loads (a new instance loads English only).",
      from: { path: "^(src|functions)/", pathNot: "^src/common/zod\\.ts$" },
      to: { path: "node_modules/zod/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
