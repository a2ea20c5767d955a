import type { Container } from "@azure/cosmos";
import {
  InvalidRequestContent,
  PreconditionFailed,
  QuotaExceeded,
  ResourceNotFound,
  ServiceUnavailable,
} from "../shared/errors";
import type { Page, PageRequest } from "../shared/page";
import { checkPreconditions, hasPreconditions, type Preconditions } from "../shared/preconditions";
import { Conflict } from "../store/cosmos-errors";
import { DocumentStore, type Stored } from "../store/document-store";
import type { QuotaLedger, QuotaScope } from "../store/quota-ledger";
import { utf8Length } from "./profile-content";
import type { AuthenticationProfile, ProfilePatch, ProfilePut } from "./profile-schema";

/** The stored form: `id` is the lower-cased name, so names match case-insensitively. */
export interface ProfileDocument {
  id: string;
  authenticationProfileName: string;
  authenticationProfileContent: string;
  createdAt: string;
  updatedAt: string;
}

export interface Versioned<T> {
  resource: T;
  etag: string;
}

export interface ProfileLimits {
  maxContentBytes: number;
  maxCount: number;
}

/** How many times a write without preconditions re-reads after losing a race before giving up. */
const WRITE_ATTEMPTS = 5;

function toResource(document: Stored<ProfileDocument>): Versioned<AuthenticationProfile> {
  return {
    resource: {
      id: document.authenticationProfileName,
      authenticationProfileName: document.authenticationProfileName,
      authenticationProfileContent: document.authenticationProfileContent,
    },
    etag: document._etag,
  };
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export class ProfileService {
  private readonly documents: DocumentStore<ProfileDocument>;
  private readonly quotaScope: QuotaScope;

  constructor(
    container: Container,
    private readonly quotas: QuotaLedger,
    private readonly limits: ProfileLimits,
  ) {
    this.documents = new DocumentStore<ProfileDocument>(container, (document) => document.id);
    this.quotaScope = {
      id: "authenticationProfiles",
      limit: limits.maxCount,
      noun: "authentication profiles",
      existingKeys: () => this.documents.queryAll<string>({ query: "SELECT VALUE c.id FROM c" }),
    };
  }

  async get(name: string): Promise<Versioned<AuthenticationProfile>> {
    const document = await this.documents.read(name.toLowerCase(), name.toLowerCase());
    if (!document) throw notFound(name);
    return toResource(document);
  }

  async list(page: PageRequest): Promise<Page<AuthenticationProfile>> {
    const result = await this.documents.queryPage({ query: "SELECT * FROM c ORDER BY c.id" }, page);
    return {
      items: result.items.map((document) => toResource(document).resource),
      continuation: result.continuation,
    };
  }

  /** Creates or replaces the profile; `created` tells which. */
  async put(
    name: string,
    body: ProfilePut,
    preconditions: Preconditions,
  ): Promise<{ profile: Versioned<AuthenticationProfile>; created: boolean }> {
    this.checkEchoedFields(name, body);
    this.checkContentQuota(body.authenticationProfileContent);
    const key = name.toLowerCase();
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const existing = await this.documents.read(key, key);
      checkPreconditions(preconditions, existing?._etag);
      const now = new Date().toISOString();
      if (existing) {
        const replaced = await this.replaceUnlessRaced(
          { ...existing, authenticationProfileContent: body.authenticationProfileContent, updatedAt: now },
          existing._etag,
          preconditions,
        );
        if (replaced) return { profile: toResource(replaced), created: false };
        continue;
      }
      await this.quotas.reserve(this.quotaScope, key);
      try {
        const created = await this.documents.create({
          id: key,
          authenticationProfileName: name,
          authenticationProfileContent: body.authenticationProfileContent,
          createdAt: now,
          updatedAt: now,
        });
        return { profile: toResource(created), created: true };
      } catch (error) {
        // Someone created it first: go round again and treat it as a replace (or a 412).
        if (!(error instanceof Conflict)) throw error;
      }
    }
    throw contention();
  }

  async patch(
    name: string,
    body: ProfilePatch,
    preconditions: Preconditions,
  ): Promise<Versioned<AuthenticationProfile>> {
    this.checkEchoedFields(name, body);
    if (body.authenticationProfileContent !== undefined)
      this.checkContentQuota(body.authenticationProfileContent);
    const key = name.toLowerCase();
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const existing = await this.documents.read(key, key);
      checkPreconditions(preconditions, existing?._etag);
      if (!existing) throw notFound(name);
      const replaced = await this.replaceUnlessRaced(
        {
          ...existing,
          authenticationProfileContent:
            body.authenticationProfileContent ?? existing.authenticationProfileContent,
          updatedAt: new Date().toISOString(),
        },
        existing._etag,
        preconditions,
      );
      if (replaced) return toResource(replaced);
    }
    throw contention();
  }

  /** Deletes the profile; false when there was nothing to delete. */
  async delete(name: string, preconditions: Preconditions): Promise<boolean> {
    const key = name.toLowerCase();
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const existing = await this.documents.read(key, key);
      checkPreconditions(preconditions, existing?._etag);
      if (!existing) return false;
      try {
        if (!(await this.documents.delete(key, key, existing._etag))) return false;
      } catch (error) {
        if (hasPreconditions(preconditions) || !isRace(error)) throw error;
        continue;
      }
      await this.quotas.release(this.quotaScope, key);
      return true;
    }
    throw contention();
  }

  /** A replace that lost a race is retried by the caller unless the client set a precondition. */
  private async replaceUnlessRaced(
    document: ProfileDocument,
    etag: string,
    preconditions: Preconditions,
  ): Promise<Stored<ProfileDocument> | undefined> {
    try {
      return await this.documents.replace(document, etag);
    } catch (error) {
      if (hasPreconditions(preconditions) || !isRace(error)) throw error;
      return undefined;
    }
  }

  /** `id` and the name are read-only echoes of the path. */
  private checkEchoedFields(name: string, body: ProfilePatch): void {
    if (body.authenticationProfileName !== undefined && !sameName(body.authenticationProfileName, name)) {
      throw new InvalidRequestContent(
        "authenticationProfileName must equal the name in the path; renaming a profile replaces it.",
        "authenticationProfileName",
      );
    }
    if (body.id !== undefined && !sameName(body.id, name)) {
      throw new InvalidRequestContent("id is read-only: send it only with its current value.", "id");
    }
  }

  private checkContentQuota(content: string): void {
    const bytes = utf8Length(content);
    if (bytes > this.limits.maxContentBytes) {
      throw new QuotaExceeded(
        `authenticationProfileContent is ${bytes} bytes; the account quota is ${this.limits.maxContentBytes} bytes.`,
        "authenticationProfileContent",
      );
    }
  }
}

/** The store raises PreconditionFailed when the version read was replaced before the write. */
function isRace(error: unknown): boolean {
  return error instanceof PreconditionFailed;
}

function notFound(name: string): ResourceNotFound {
  return new ResourceNotFound(`The authentication profile '${name}' was not found.`);
}

function contention(): ServiceUnavailable {
  return new ServiceUnavailable("The profile is being changed concurrently; retry shortly.", 1);
}
