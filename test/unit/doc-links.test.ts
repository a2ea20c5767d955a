import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";

// Every relative link of the repository's Markdown pages leads somewhere: the file exists and, when
// the link names a heading (`page.md#heading`), the page has that heading as GitHub anchors it.
// Pages move (the walkthrough left the README); a reader following a link should not find nothing.

const ROOT = path.join(__dirname, "..", "..");
const FOLDERS = [".", "docs", "client", "pulumi", "infra"];

function pages(): string[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(path.join(ROOT, folder))
      .filter((name) => name.endsWith(".md"))
      .map((name) => path.posix.join(folder, name)),
  );
}

/** The text outside fenced code blocks and inline code, where a `](` is a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[\s\S]*?^\1/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/**
 * The anchors of a page's headings (their inline code kept, fences left out); a repeated heading
 * gets `-1`, `-2`, … as on GitHub.
 */
function headingAnchors(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^(```|~~~)[\s\S]*?^\1/gm, "");
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = anchorOf(match[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

function brokenLinks(page: string): string[] {
  const text = readFileSync(path.join(ROOT, page), "utf8");
  const broken: string[] = [];
  for (const match of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [file = "", anchor] = target.split("#");
    const resolved = file === "" ? path.join(ROOT, page) : path.join(ROOT, path.dirname(page), file);
    if (!existsSync(resolved)) {
      broken.push(`${page}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith(".md") || statSync(resolved).isDirectory()) continue;
    if (!headingAnchors(resolved).has(decodeURIComponent(anchor))) {
      broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  return broken;
}

describe("links between the Markdown pages", () => {
  it("finds the pages and their links", () => {
    expect(pages()).toEqual(expect.arrayContaining(["README.md", "docs/walkthrough.md", "docs/api.md"]));
  });

  it.each(pages())("%s: every relative link finds its file and heading", (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it("anchors headings as GitHub does", () => {
    expect(anchorOf("Ports and local settings")).toBe("ports-and-local-settings");
    expect(anchorOf("After deploying: smoke check")).toBe("after-deploying-smoke-check");
    expect(anchorOf("Identity-based endpoints: who grants what")).toBe(
      "identity-based-endpoints-who-grants-what",
    );
    expect(anchorOf("The poison queue and dead-letter blobs")).toBe("the-poison-queue-and-dead-letter-blobs");
  });
});
