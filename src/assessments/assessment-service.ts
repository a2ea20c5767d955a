import { isDeepStrictEqual } from "node:util";
import type { Container } from "@azure/cosmos";
import { InvalidRequestContent, ResourceNotFound } from "../common/errors";
import { nameKey, sameName } from "../common/name-key";
import { mapPage, type Page, type PageRequest } from "../common/page";
import { formatEtag, normalizeEtag, type Preconditions } from "../common/preconditions";
import type { ResourceService } from "../common/resource-service";
import { type Actor, stampSystemData } from "../common/system-data";
import type { Versioned } from "../common/versioned";
import { ConditionalWriter, type DocumentAddress } from "../store/conditional-writer";
import { documentId } from "../store/document-id";
import { DocumentStore, type Stored } from "../store/document-store";
import { onlyIds } from "../store/only-ids";
import {
  ASSESSMENT_TYPE,
  type AssessmentPath,
  assessmentId,
  type ProjectPath,
  projectKey,
} from "./assessment-path";
import type { AssessmentPut, ClusterAssessment, SystemData } from "./assessment-schema";

/** The stored form, partitioned by project: a project's assessments are one partition. */
export interface AssessmentDocument {
  id: string;
  projectKey: string;
  resourceId: string;
  name: string;
  provisioningState: string;
  details: ClusterAssessment["details"];
  settings: ClusterAssessment["settings"];
  scope?: ClusterAssessment["scope"];
  systemData: SystemData;
}

function addressOf(path: AssessmentPath): DocumentAddress {
  return { id: documentId(nameKey(path.assessmentName)), partitionKey: projectKey(path) };
}

function toResource(document: Stored<AssessmentDocument>): Versioned<ClusterAssessment> {
  const eTag = formatEtag(document._etag);
  return {
    resource: {
      id: document.resourceId,
      name: document.name,
      type: ASSESSMENT_TYPE,
      eTag,
      provisioningState: document.provisioningState,
      details: document.details,
      settings: document.settings,
      ...(document.scope !== undefined && { scope: document.scope }),
      systemData: document.systemData,
    },
    etag: document._etag,
  };
}

export class AssessmentService
  implements ResourceService<ProjectPath, AssessmentPath, ClusterAssessment, AssessmentPut, never>
{
  private readonly documents: DocumentStore<AssessmentDocument>;
  private readonly writer: ConditionalWriter<AssessmentDocument>;

  constructor(container: Container) {
    this.documents = new DocumentStore<AssessmentDocument>(container, (document) => document.projectKey);
    this.writer = new ConditionalWriter(this.documents, "assessment");
  }

  async get(path: AssessmentPath): Promise<Versioned<ClusterAssessment>> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    if (!document) throw notFound(path);
    return toResource(document);
  }

  async list(
    path: ProjectPath,
    page: PageRequest,
    only?: readonly string[],
  ): Promise<Page<ClusterAssessment>> {
    const ids = onlyIds(only, (assessmentName) => addressOf({ ...path, assessmentName }).id);
    // The partition key is filtered in the query text too: the local Cosmos server ignores the option.
    const result = await this.documents.queryPage(
      {
        query: `SELECT * FROM c WHERE c.projectKey = @projectKey${ids.clause} ORDER BY c.id`,
        parameters: [{ name: "@projectKey", value: projectKey(path) }, ...ids.parameters],
      },
      page,
    );
    return mapPage(result, (document) => toResource(document).resource);
  }

  async put(
    path: AssessmentPath,
    body: AssessmentPut,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<{ versioned: Versioned<ClusterAssessment>; created: boolean }> {
    const now = new Date().toISOString();
    const { document, created } = await this.writer.put(
      addressOf(path),
      preconditions,
      (existing, address) => {
        this.checkEchoedFields(path, body, existing);
        return {
          id: address.id,
          projectKey: address.partitionKey,
          resourceId: existing?.resourceId ?? assessmentId(path),
          name: existing?.name ?? path.assessmentName,
          provisioningState: body.provisioningState,
          details: body.details,
          settings: body.settings,
          ...(body.scope !== undefined && { scope: body.scope }),
          systemData: stampSystemData(existing?.systemData, actor, now),
        };
      },
    );
    return { versioned: toResource(document), created };
  }

  delete(path: AssessmentPath, preconditions: Preconditions): Promise<boolean> {
    return this.writer.delete(addressOf(path), preconditions);
  }

  /** The server-made fields may come back on PUT, but only as they are now. */
  private checkEchoedFields(
    path: AssessmentPath,
    body: AssessmentPut,
    existing: Stored<AssessmentDocument> | undefined,
  ): void {
    const current = existing ? toResource(existing).resource : undefined;
    const mismatches: string[] = [];
    if (body.id !== undefined && !sameName(body.id, current?.id ?? assessmentId(path))) mismatches.push("id");
    if (body.name !== undefined && !sameName(body.name, current?.name ?? path.assessmentName))
      mismatches.push("name");
    if (body.type !== undefined && !sameName(body.type, ASSESSMENT_TYPE)) mismatches.push("type");
    if (body.eTag !== undefined && (!current || normalizeEtag(body.eTag) !== normalizeEtag(current.eTag))) {
      mismatches.push("eTag");
    }
    if (body.systemData !== undefined && !isDeepStrictEqual(body.systemData, current?.systemData)) {
      mismatches.push("systemData");
    }
    if (mismatches.length > 0) {
      throw new InvalidRequestContent(
        `${mismatches.join(", ")} ${mismatches.length === 1 ? "is" : "are"} set by the server: send ${
          mismatches.length === 1 ? "it" : "them"
        } only with the current value.`,
        mismatches[0],
        mismatches.map((field) => ({
          code: "ReadOnlyProperty",
          message: `${field} is read-only.`,
          target: field,
        })),
      );
    }
  }
}

function notFound(path: AssessmentPath): ResourceNotFound {
  return new ResourceNotFound(
    `The cluster assessment '${path.assessmentName}' of the assessment project '${path.projectName}' was not found.`,
  );
}
