import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";

export const ROOT = path.join(__dirname, "..", "..");

/**
 * The Markdown pages whose code the root's documentation tests hold to: paths relative to the
 * root. pulumi/README.md is the Pulumi package's tests' (pulumi/test/).
 */
export function documentationPages(): string[] {
  const docs = readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs.sort(), "client/README.md"];
}

export interface CodeBlock {
  /** Relative to the root, with the line the block's code starts on: `README.md:42`. */
  where: string;
  language: string;
  code: string;
  /** A `<!-- not-compiled -->` comment stands on the line before the fence. */
  optedOut: boolean;
}

/** The fenced code blocks of a Markdown text, in order. */
export function codeBlocks(page: string, text: string): CodeBlock[] {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\S*)\s*$/.exec(lines[index] as string);
    if (!open) continue;
    const end = lines.findIndex((line, at) => at > index && /^```\s*$/.test(line));
    if (end === -1) throw new Error(`${page}:${index + 1}: a code block is not closed`);
    const before =
      lines
        .slice(0, index)
        .reverse()
        .find((line) => line.trim() !== "") ?? "";
    blocks.push({
      where: `${page}:${index + 2}`,
      language: open[1] ?? "",
      code: lines.slice(index + 1, end).join("\n"),
      optedOut: before.trim() === "<!-- not-compiled -->",
    });
    index = end;
  }
  return blocks;
}

export function readPage(page: string): string {
  return readFileSync(path.join(ROOT, page), "utf8");
}
