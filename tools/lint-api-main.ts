import { lintApiDescription } from "./api-lint";

// npm run lint:api: the API description, linted by Redocly; any problem fails.
const { file, redocly } = lintApiDescription();
for (const line of redocly) console.log(`redocly  ${line}`);
console.log(`${file}: ${redocly.length} Redocly problems`);
process.exitCode = redocly.length === 0 ? 0 : 1;
