import * as fs from "node:fs";
import type { ServerResponse } from "node:http";
import * as path from "node:path";
import { displayPath } from "../local-paths";

/**
 * Keeps the local Cosmos server's store on disk as one file, `cosmos-snapshot.json`. Before any
 * answer goes out (a read's too), if the store is not what the file holds, the whole store is
 * written to `cosmos-snapshot.json.tmp`, fsync'ed and renamed over the file, synchronously: every
 * answer shows only what is on disk, and a crash at any point leaves the previous snapshot or the
 * new one, never part of one. Resources are kept as the server stores them (resource ids, ETags,
 * timestamps), with each store's id counter, so they come back the same.
 */

const SNAPSHOT_FILE = "cosmos-snapshot.json";
const FORMAT = "cosmos-snapshot/3";

type Resource = { id: string; _rid: string };
// What the service stores: databases, their containers and the containers' documents.
const CHILDREN = ["collections", "documents"] as const;
type Children<T> = { [K in (typeof CHILDREN)[number]]?: T };

/** The parts of the server's `Items` (its map of one kind of resource) and of their nodes that are kept. */
interface Items {
  _data: Map<string, { read(): Resource } & Children<Items>>;
  _ridCount: number;
  _set(data: Resource): unknown;
}

/** A store as saved: its id counter, and each resource with the stores under it. */
interface Saved {
  n: number;
  items: ({ d: Resource } & Children<Saved>)[];
}

function dump(items: Items): Saved {
  const saved: Saved = { n: items._ridCount, items: [] };
  for (const node of items._data.values()) {
    const entry: Saved["items"][number] = { d: node.read() };
    for (const key of CHILDREN) if (node[key] !== undefined) entry[key] = dump(node[key]);
    saved.items.push(entry);
  }
  return saved;
}

function restore(items: Items, saved: Saved): void {
  items._ridCount = saved.n;
  for (const entry of saved.items) {
    items._set(entry.d);
    const node = items._data.get(entry.d._rid);
    for (const key of CHILDREN) {
      const [child, savedChild] = [node?.[key], entry[key]];
      if (child !== undefined && savedChild !== undefined) restore(child, savedChild);
    }
  }
}

type Account = { databases: Items };
let lastAccount: Account | undefined;
let capturing = false;

/** The server makes its account in a closure when it starts listening; this is the way to it. */
function captureAccounts(): void {
  const module = require("@vercel/cosmosdb-server/lib/account") as {
    default: new (...args: unknown[]) => Account;
  };
  if (capturing) return;
  capturing = true;
  module.default = class extends module.default {
    constructor(...args: unknown[]) {
      super(...args);
      lastAccount = this;
    }
  };
}

export class CosmosSnapshot {
  private readonly file: string;
  private readonly stored: Saved | undefined;
  private account: Account | undefined;
  private saved = "";

  /** Reads the data folder; throws when the snapshot cannot be read (or is of another format). */
  constructor(private readonly dir: string) {
    captureAccounts();
    fs.mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, SNAPSHOT_FILE);
    if (!fs.existsSync(this.file)) return;
    let snapshot: { format?: unknown; databases?: Saved } | undefined;
    try {
      snapshot = JSON.parse(fs.readFileSync(this.file, "utf8"));
    } catch (error) {
      throw new Error(`cannot read the snapshot ${this.file} (${(error as Error).message})`);
    }
    if (snapshot?.format !== FORMAT) {
      throw new Error(`cannot read the snapshot ${this.file} (format ${snapshot?.format}, not ${FORMAT})`);
    }
    this.stored = snapshot.databases;
  }

  /** In the server's `listening` listener (after the one that makes its account), before any request. */
  restore(): void {
    this.account = lastAccount as Account;
    if (this.stored === undefined) return;
    restore(this.account.databases, this.stored);
    this.saved = this.json();
    const collections = this.stored.items.flatMap((database) => database.collections?.items ?? []);
    const documents = collections.flatMap((collection) => collection.documents?.items ?? []).length;
    console.log(`Cosmos DB server: restored ${documents} documents from ${displayPath(this.dir)}`);
  }

  /** Before `res` is answered, puts the store as it is then on disk; if that fails, `res` gets no answer. */
  gate(res: ServerResponse): void {
    const end = res.end;
    res.end = ((...args: Parameters<typeof end>) => {
      try {
        this.save();
      } catch (error) {
        console.error(`Cosmos DB server: cannot write ${this.file} (${(error as Error).message})`);
        return res.destroy();
      }
      return end.apply(res, args);
    }) as typeof end;
  }

  private json(): string {
    return JSON.stringify({ format: FORMAT, databases: dump((this.account as Account).databases) });
  }

  private save(): void {
    const json = this.json();
    if (json === this.saved) return;
    const temporary = `${this.file}.tmp`;
    const fd = fs.openSync(temporary, "w");
    try {
      fs.writeFileSync(fd, json);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, this.file);
    // And the rename itself on disk (for a power cut; a crashed process needs only the rename).
    const folder = fs.openSync(this.dir, "r");
    fs.fsyncSync(folder);
    fs.closeSync(folder);
    this.saved = json;
  }
}
