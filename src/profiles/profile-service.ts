import type { Container } from "@azure/cosmos";
import { InvalidRequestContent, QuotaExceeded, ResourceNotFound } from "../common/errors";
import { nameKey, sameName } from "../common/name-key";
import { mapPage, type Page, type PageRequest } from "../common/page";
import type { Preconditions } from "../common/preconditions";
import type { ResourceService } from "../common/resource-service";
import {
  type Actor,
  checkEchoedSystemData,
  legacySystemData,
  type SystemData,
  stampSystemData,
} from "../common/system-data";
import type { Versioned } from "../common/versioned";
import { ConditionalWriter, type DocumentAddress } from "../store/conditional-writer";
import { DocumentStore, type Stored } from "../store/document-store";
import { onlyIds } from "../store/only-ids";
import { LEDGER_ID, QuotaLedger, type QuotaScope } from "../store/quota-ledger";
import { utf8Length } from "./profile-content";
import type { AuthenticationProfile, ProfilePatch, ProfilePut } from "./profile-schema";

/**
 * The stored form: `id` is the lower-cased name, so names match case-insensitively. Every profile
 * is in the one partition `scope` = "account", beside the ledger of the account's count quota.
 */
export interface ProfileDocument {
  id: string;
  scope: typeof ACCOUNT_SCOPE;
  authenticationProfileName: string;
  authenticationProfileContent: string;
  createdAt: string;
  updatedAt: string;
  /** Absent on profiles written before systemData was recorded. */
  systemData?: SystemData;
}

export interface ProfileLimits {
  maxContentBytes: number;
  maxCount: number;
}

function currentSystemData(document: ProfileDocument): SystemData {
  return document.systemData ?? legacySystemData(document);
}

function toResource(document: Stored<ProfileDocument>): Versioned<AuthenticationProfile> {
  return {
    resource: {
      id: document.authenticationProfileName,
      authenticationProfileName: document.authenticationProfileName,
      authenticationProfileContent: document.authenticationProfileContent,
      systemData: currentSystemData(document),
    },
    etag: document._etag,
  };
}

/** The profile's path parameters. */
export interface ProfilePath {
  authenticationProfileName: string;
}

const ACCOUNT_SCOPE = "account";

function addressOf({ authenticationProfileName: name }: ProfilePath): DocumentAddress {
  return { id: nameKey(name), partitionKey: ACCOUNT_SCOPE };
}

export class ProfileService
  implements
    ResourceService<Record<string, never>, ProfilePath, AuthenticationProfile, ProfilePut, ProfilePatch>
{
  private readonly documents: DocumentStore<ProfileDocument>;
  private readonly writer: ConditionalWriter<ProfileDocument>;
  readonly quota: QuotaScope;
  readonly ledger: QuotaLedger<ProfileDocument>;

  constructor(
    container: Container,
    private readonly limits: ProfileLimits,
  ) {
    this.documents = new DocumentStore<ProfileDocument>(container, (document) => document.scope);
    this.quota = {
      partitionKey: ACCOUNT_SCOPE,
      limit: limits.maxCount,
      noun: "authentication profiles",
      setting: "AUTH_PROFILE_MAX_COUNT",
    };
    this.ledger = new QuotaLedger(this.documents, "scope");
    this.writer = new ConditionalWriter(this.documents, "authentication profile", {
      ledger: this.ledger,
      scopeOf: () => this.quota,
    });
  }

  async get(path: ProfilePath): Promise<Versioned<AuthenticationProfile>> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    if (!document) throw notFound(path);
    return toResource(document);
  }

  async list(
    _path: Record<string, never>,
    page: PageRequest,
    only?: readonly string[],
  ): Promise<Page<AuthenticationProfile>> {
    const ids = onlyIds(only, (name) => addressOf({ authenticationProfileName: name }).id);
    const result = await this.documents.queryPage(
      {
        query: `SELECT * FROM c WHERE c.id != @ledger${ids.clause} ORDER BY c.id`,
        parameters: [{ name: "@ledger", value: LEDGER_ID }, ...ids.parameters],
      },
      page,
    );
    return mapPage(result, (document) => toResource(document).resource);
  }

  /** Creates or replaces the profile; `created` tells which. */
  async put(
    path: ProfilePath,
    body: ProfilePut,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<{ versioned: Versioned<AuthenticationProfile>; created: boolean }> {
    const name = path.authenticationProfileName;
    this.checkEchoedFields(name, body);
    this.checkContentQuota(body.authenticationProfileContent);
    const now = new Date().toISOString();
    const { document, created } = await this.writer.put(
      addressOf(path),
      preconditions,
      (existing, address) => {
        checkEchoedSystemData(body.systemData, existing && currentSystemData(existing));
        return existing
          ? {
              ...existing,
              authenticationProfileContent: body.authenticationProfileContent,
              updatedAt: now,
              systemData: stampSystemData(currentSystemData(existing), actor, now),
            }
          : {
              id: address.id,
              scope: ACCOUNT_SCOPE,
              authenticationProfileName: name,
              authenticationProfileContent: body.authenticationProfileContent,
              createdAt: now,
              updatedAt: now,
              systemData: stampSystemData(undefined, actor, now),
            };
      },
    );
    return { versioned: toResource(document), created };
  }

  async patch(
    path: ProfilePath,
    body: ProfilePatch,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<Versioned<AuthenticationProfile>> {
    this.checkEchoedFields(path.authenticationProfileName, body);
    if (body.authenticationProfileContent !== undefined)
      this.checkContentQuota(body.authenticationProfileContent);
    const document = await this.writer.patch(
      addressOf(path),
      preconditions,
      (existing) => {
        checkEchoedSystemData(body.systemData, currentSystemData(existing));
        const now = new Date().toISOString();
        return {
          ...existing,
          authenticationProfileContent:
            body.authenticationProfileContent ?? existing.authenticationProfileContent,
          updatedAt: now,
          systemData: stampSystemData(currentSystemData(existing), actor, now),
        };
      },
      () => notFound(path),
    );
    return toResource(document);
  }

  /** Deletes the profile; false when there was nothing to delete. */
  delete(path: ProfilePath, preconditions: Preconditions): Promise<boolean> {
    return this.writer.delete(addressOf(path), preconditions);
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
        `authenticationProfileContent is ${bytes} bytes; the quota is ${this.limits.maxContentBytes} bytes: shorten the content, or raise AUTH_PROFILE_CONTENT_MAX_BYTES.`,
        "authenticationProfileContent",
      );
    }
  }
}

function notFound(path: ProfilePath): ResourceNotFound {
  return new ResourceNotFound(
    `The authentication profile '${path.authenticationProfileName}' was not found.`,
  );
}
