import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { CONTAINERS } from "../../src/store/containers";

/**
 * Every Cosmos DB container of src/store/containers.ts, and no other, is created by infra/ with the
 * same partition key path: the app's data-plane role cannot create containers in Azure.
 */
const INFRA = path.join(__dirname, "..", "..", "infra");
const mainBicep = readFileSync(path.join(INFRA, "main.bicep"), "utf8");

interface InfraContainer {
  name: string;
  partitionKeyPath: string;
}

/** The items of `var cosmosContainers = [ ... ]`: `{`, `name: '...'`, `partitionKeyPath: '...'`, `}`. */
function cosmosContainers(): InfraContainer[] {
  const lines = mainBicep.split(/\r?\n/);
  const start = lines.indexOf("var cosmosContainers = [");
  if (start < 0) throw new Error('infra/main.bicep has no line "var cosmosContainers = ["');
  const end = lines.indexOf("]", start);
  if (end < 0) throw new Error('var cosmosContainers in infra/main.bicep is not closed by a line "]"');
  const found: InfraContainer[] = [];
  let current: Partial<InfraContainer> | undefined;
  for (const line of lines.slice(start + 1, end)) {
    const text = line.trim();
    if (text === "" || text.startsWith("//")) continue;
    const property = /^(name|partitionKeyPath): '([^']+)'$/.exec(text);
    if (text === "{" && current === undefined) {
      current = {};
    } else if (text === "}" && current?.name !== undefined && current.partitionKeyPath !== undefined) {
      found.push({ name: current.name, partitionKeyPath: current.partitionKeyPath });
      current = undefined;
    } else if (property?.[1] && property[2] && current !== undefined && !(property[1] in current)) {
      current[property[1] as keyof InfraContainer] = property[2];
    } else {
      throw new Error(`var cosmosContainers: cannot read "${text}"`);
    }
  }
  return found;
}

function bicepFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return bicepFiles(full);
    return entry.name.endsWith(".bicep") ? [full] : [];
  });
}

const byName = (a: InfraContainer, b: InfraContainer) => a.name.localeCompare(b.name);

describe("infra Cosmos DB containers", () => {
  it("lists every container of src/store/containers.ts with its partition key, and no other", () => {
    const expected = Object.values(CONTAINERS)
      .map(({ id, partitionKey }) => ({ name: id, partitionKeyPath: partitionKey }))
      .sort(byName);
    const inBicep = cosmosContainers().sort(byName);
    expect(inBicep.length).toBeGreaterThan(0);
    expect(inBicep).toEqual(expected);
  });

  it("creates exactly those containers: one container resource, looping over the list", () => {
    expect(mainBicep).toMatch(/^\s*containers: cosmosContainers$/m);
    const declarations = bicepFiles(INFRA).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      const resources =
        text.match(/'Microsoft\.DocumentDB\/databaseAccounts\/sqlDatabases\/containers@/g) ?? [];
      return resources.map(() => ({ file: path.relative(INFRA, file), text }));
    });
    expect(declarations.map(({ file }) => file)).toEqual([
      path.join("core", "database", "cosmos-sql-serverless.bicep"),
    ]);
    const module = declarations[0]?.text ?? "";
    expect(module).toMatch(/for container in containers: \{/);
    expect(module).toMatch(/id: container\.name$/m);
    expect(module).toMatch(/paths: \[\s*container\.partitionKeyPath\s*\]/);
  });
});
