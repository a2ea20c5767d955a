import { lintApiDescription } from "./api-lint";

// npm run lint:api: the API description, linted by Redocly and Spectral; any problem fails.
const { file, redocly, spectral } = lintApiDescription();
for (const line of redocly) console.log(`redocly  ${line}`);
for (const line of spectral) console.log(`spectral ${line}`);
console.log(`${file}: ${redocly.length} Redocly problems, ${spectral.length} Spectral problems`);
process.exitCode = redocly.length + spectral.length === 0 ? 0 : 1;
