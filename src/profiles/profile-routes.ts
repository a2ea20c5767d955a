import type { HttpRequest } from "@azure/functions";
import { checkApiVersion } from "../http/api-version";
import { readPreconditions } from "../http/conditional";
import { camelCaseKeys } from "../http/field-names";
import { listBody, readPageRequest } from "../http/paging";
import { readJsonObjectBody } from "../http/request-body";
import { deleted, jsonResponse, noContent, notModified } from "../http/responses";
import type { RouteDefinition } from "../http/route";
import { parseOrThrow, parseParameter } from "../http/validation";
import { isNotModified } from "../shared/preconditions";
import {
  PROFILE_API_VERSIONS,
  profileNameSchema,
  profilePatchSchema,
  profilePutSchema,
} from "./profile-schema";

const COLLECTION = "authenticationProfiles";
const ITEM = `${COLLECTION}/{authenticationProfileName}`;

/** The profile name from the path, checked before anything is read or written. */
function profileName(request: HttpRequest): string {
  checkApiVersion(request, PROFILE_API_VERSIONS);
  return parseParameter(
    "authenticationProfileName",
    profileNameSchema,
    request.params.authenticationProfileName,
  );
}

export const profileRoutes: RouteDefinition[] = [
  {
    name: "authenticationProfiles-list",
    methods: ["GET"],
    route: COLLECTION,
    authLevel: "function",
    handler: async (request, _context, { profiles }) => {
      checkApiVersion(request, PROFILE_API_VERSIONS);
      return jsonResponse(200, listBody(request, await profiles.list(readPageRequest(request))));
    },
  },
  {
    name: "authenticationProfiles-get",
    methods: ["GET"],
    route: ITEM,
    authLevel: "function",
    handler: async (request, _context, { profiles }) => {
      const { resource, etag } = await profiles.get(profileName(request));
      if (isNotModified(readPreconditions(request).ifNoneMatch, etag)) return notModified(etag);
      return jsonResponse(200, resource, etag);
    },
  },
  {
    name: "authenticationProfiles-put",
    methods: ["PUT"],
    route: ITEM,
    authLevel: "function",
    handler: async (request, _context, { profiles }) => {
      const name = profileName(request);
      const body = parseOrThrow(profilePutSchema, camelCaseKeys(await readJsonObjectBody(request)));
      const { profile, created } = await profiles.put(name, body, readPreconditions(request));
      return jsonResponse(created ? 201 : 200, profile.resource, profile.etag);
    },
  },
  {
    name: "authenticationProfiles-patch",
    methods: ["PATCH"],
    route: ITEM,
    authLevel: "function",
    handler: async (request, _context, { profiles }) => {
      const name = profileName(request);
      const body = parseOrThrow(profilePatchSchema, camelCaseKeys(await readJsonObjectBody(request)));
      const { resource, etag } = await profiles.patch(name, body, readPreconditions(request));
      return jsonResponse(200, resource, etag);
    },
  },
  {
    name: "authenticationProfiles-delete",
    methods: ["DELETE"],
    route: ITEM,
    authLevel: "function",
    handler: async (request, _context, { profiles }) => {
      const existed = await profiles.delete(profileName(request), readPreconditions(request));
      return existed ? deleted() : noContent();
    },
  },
];
