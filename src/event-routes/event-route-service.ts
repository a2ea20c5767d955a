import type { Container } from "@azure/cosmos";
import { InvalidRequestContent, ResourceNotFound } from "../common/errors";
import { nameKey, sameName } from "../common/name-key";
import { mapPage, type Page, type PageRequest } from "../common/page";
import type { Preconditions } from "../common/preconditions";
import type { LinkedAccess, ResourceService } from "../common/resource-service";
import { type Actor, checkEchoedSystemData, type SystemData, stampSystemData } from "../common/system-data";
import type { Versioned } from "../common/versioned";
import {
  ENDPOINT_READ_ACTION,
  type EventRoutePath,
  endpointId,
  eventRouteId,
  type InstancePath,
  instanceKey,
  twinsInstanceId,
} from "../endpoints/endpoint-path";
import { ROUTES_ONLY, routeDocumentId, routeLedger, routeQuotaScope } from "../endpoints/instance-partition";
import { ConditionalWriter, type DocumentAddress } from "../store/conditional-writer";
import { DocumentStore, type Stored } from "../store/document-store";
import { onlyIds } from "../store/only-ids";
import type { Alongside, JudgeReferent } from "../store/quota-ledger";
import type { EventRoute, EventRoutePut } from "./event-route-schema";

/**
 * The stored form, in the instance's partition of the endpoints' container, beside the endpoints
 * (src/endpoints/instance-partition.ts): the query that reads an instance's endpoints for delivery
 * reads its routes too, and a route's write can read its endpoint in the same transactional batch.
 */
export interface EventRouteDocument {
  id: string;
  instanceKey: string;
  name: string;
  twinsInstanceId: string;
  endpointName: string;
  filter: string;
  createdAt: string;
  updatedAt: string;
  systemData: SystemData;
}

function addressOf(path: EventRoutePath): DocumentAddress {
  return { id: routeDocumentId(path.eventRouteName), partitionKey: instanceKey(path) };
}

/**
 * Event routes: which of an instance's events reach which endpoint. Every create, replace and
 * delete goes through the routes' ledger (a count exact under races, and each route's endpoint),
 * and a create or replace reads the route's endpoint in the same batch: a route is never stored
 * for an endpoint that is not, and an endpoint's delete (which writes the same ledger) is refused
 * while routes name it. `changed` hears of every write, so this host's delivery sees it at once.
 *
 * Moving a route to another endpoint, or deleting it, changes what the endpoint it named receives
 * (one that no route names any more gets every event): with `access`, that needs the endpoint's
 * read action too, asked of the endpoint the ledger says the route names in the very version the
 * write's batch is conditional on, so a route another request moved meanwhile is judged where it
 * went, never where this request first found it.
 */
export class EventRouteService
  implements ResourceService<InstancePath, EventRoutePath, EventRoute, EventRoutePut, never>
{
  private readonly documents: DocumentStore<EventRouteDocument>;
  private readonly writer: ConditionalWriter<EventRouteDocument>;

  constructor(
    container: Container,
    maxPerInstance: number,
    private readonly changed: (instance: InstancePath) => void = () => {},
  ) {
    this.documents = new DocumentStore<EventRouteDocument>(container, (document) => document.instanceKey);
    this.writer = new ConditionalWriter(this.documents, "event route", {
      ledger: routeLedger(this.documents),
      scopeOf: ({ partitionKey }) => routeQuotaScope(partitionKey, maxPerInstance),
      alongsideWrite: (route) => async () => endpointMustExist(route.endpointName),
    });
  }

  async get(path: EventRoutePath): Promise<Versioned<EventRoute>> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    if (!document) throw notFound(path);
    return toResource(document);
  }

  async list(path: InstancePath, page: PageRequest, only?: readonly string[]): Promise<Page<EventRoute>> {
    const ids = onlyIds(only, routeDocumentId);
    const result = await this.documents.queryPage(
      {
        // The partition key is filtered in the query text too: the local Cosmos server ignores the option.
        query: `SELECT * FROM c WHERE c.instanceKey = @instanceKey AND ${ROUTES_ONLY}${ids.clause} ORDER BY c.id`,
        parameters: [{ name: "@instanceKey", value: instanceKey(path) }, ...ids.parameters],
      },
      page,
    );
    return mapPage(result, (document) => toResource(document).resource);
  }

  async put(
    path: EventRoutePath,
    body: EventRoutePut,
    preconditions: Preconditions,
    actor: Actor,
    access?: LinkedAccess,
  ): Promise<{ versioned: Versioned<EventRoute>; created: boolean }> {
    checkEchoedFields(path, body);
    const now = new Date().toISOString();
    try {
      const { document, created } = await this.writer.put(
        addressOf(path),
        preconditions,
        (existing, address) => {
          checkEchoedSystemData(body.systemData, existing?.systemData);
          return {
            id: address.id,
            instanceKey: address.partitionKey,
            name: existing?.name ?? path.eventRouteName,
            twinsInstanceId: existing?.twinsInstanceId ?? twinsInstanceId(path),
            endpointName: body.endpointName,
            filter: body.filter,
            createdAt: existing?.createdAt ?? now,
            updatedAt: now,
            systemData: stampSystemData(existing?.systemData, actor, now),
          };
        },
        access && mayChangeWhatItReceives(path, access),
      );
      return { versioned: toResource(document), created };
    } finally {
      this.changed(path);
    }
  }

  async delete(path: EventRoutePath, preconditions: Preconditions, access?: LinkedAccess): Promise<boolean> {
    try {
      return await this.writer.delete(
        addressOf(path),
        preconditions,
        undefined,
        access && mayChangeWhatItReceives(path, access),
      );
    } finally {
      this.changed(path);
    }
  }
}

/**
 * The endpoint a route named before its write (the ledger's key of its name; none for a new route):
 * 403 naming its id, whether or not it exists still, unless the caller may read it. The same
 * endpoint the body names was judged already (src/http), and passes again.
 */
function mayChangeWhatItReceives(path: EventRoutePath, access: LinkedAccess): JudgeReferent {
  return (endpointKey) => {
    if (endpointKey !== undefined)
      access.require(ENDPOINT_READ_ACTION, endpointId(twinsInstanceId(path), endpointKey));
  };
}

/** A route's endpoint, read in the route's batch: the batch fails unless it exists then. */
function endpointMustExist(endpointName: string): Alongside {
  return {
    operations: [{ operationType: "Read", id: nameKey(endpointName) }],
    failed: (_index, status) =>
      status === 404
        ? new InvalidRequestContent(
            `The endpoint '${endpointName}' does not exist in this digital twins instance; create it first, or name another.`,
            "endpointName",
          )
        : new Error(`Unexpected failure reading the route's endpoint: ${status}.`),
  };
}

function toResource(document: Stored<EventRouteDocument>): Versioned<EventRoute> {
  return {
    resource: {
      id: eventRouteId(document.twinsInstanceId, document.name),
      name: document.name,
      endpointName: document.endpointName,
      filter: document.filter,
      systemData: document.systemData,
    },
    etag: document._etag,
  };
}

/** `id` and `name` are read-only echoes of the path. */
function checkEchoedFields(path: EventRoutePath, body: EventRoutePut): void {
  if (body.name !== undefined && !sameName(body.name, path.eventRouteName)) {
    throw new InvalidRequestContent(
      "name must equal the name in the path; renaming a route replaces it.",
      "name",
    );
  }
  if (body.id !== undefined && !sameName(body.id, eventRouteId(twinsInstanceId(path), path.eventRouteName))) {
    throw new InvalidRequestContent("id is read-only: send it only with its current value.", "id");
  }
}

function notFound(path: EventRoutePath): ResourceNotFound {
  return new ResourceNotFound(
    `The event route '${path.eventRouteName}' of the digital twins instance '${path.instanceName}' was not found.`,
  );
}
