/**
 * The service's resource paths, modelled once: a path is a list of segments, fixed text (a resource
 * type) or a named parameter (a resource name), from which the Functions route template, the
 * resource id, the id parser and (src/common/arm-path-schema.ts) the zod schema of the route's
 * parameters all follow. A resource's URL path is its id.
 *
 * No imports, on purpose: the client (client/, published dependency-free as
 * `twin-resource-service/client`) builds its URLs and reads ids with this module too.
 */

type Segment = { readonly text: string } | { readonly param: string };

/** One value per parameter name. */
export type PathValues<P extends string> = { readonly [K in P]: string };

/** How a value is written into a path: as given for an id; the client encodes each one for a URL. */
export type Encode<P extends string> = (value: string, param: P) => string;

export interface ParseOptions {
  /** Also accept the id with a trailing '/'. */
  trailingSlash?: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A path whose parameters are P, the last of which (the name of the resource itself) is Last.
 * Fixed text matches case-insensitively when parsed, as ARM compares; values are kept as written.
 */
export class ArmPath<P extends string = never, Last extends string = never> {
  /** The path with no segments, from which every path is built. */
  static readonly ROOT = new ArmPath([]);

  /** The parameter names, in path order. */
  readonly params: readonly P[];
  private readonly pattern: RegExp;
  private readonly patternWithSlash: RegExp;

  private constructor(private readonly segments: readonly Segment[]) {
    this.params = segments.flatMap((segment) => ("param" in segment ? [segment.param as P] : []));
    const body = segments
      .map((segment) => ("param" in segment ? "/([^/]+)" : `/${escapeRegExp(segment.text)}`))
      .join("");
    this.pattern = new RegExp(`^${body}$`, "i");
    this.patternWithSlash = new RegExp(`^${body}/?$`, "i");
  }

  /** A resource below this one: its type (the collection's segment, '/' allowed) and its name parameter. */
  child<N extends string>(type: string, name: N): ArmPath<P | N, N> {
    return new ArmPath<P | N, N>([...this.segments, { text: type }, { param: name }]);
  }

  /** A segment that is a parameter of its own, such as a resource provider's namespace in a generic scope. */
  param<N extends string>(name: N): ArmPath<P | N, N> {
    return new ArmPath<P | N, N>([...this.segments, { param: name }]);
  }

  /** A fixed segment below this resource that names no resource, such as an action. */
  action(name: string): ArmPath<P, never> {
    return new ArmPath<P, never>([...this.segments, { text: name }]);
  }

  /** The collection the resource is listed in: the path without its last name. */
  get collection(): ArmPath<Exclude<P, Last>, never> {
    const last = this.segments[this.segments.length - 1];
    const segments = last !== undefined && "param" in last ? this.segments.slice(0, -1) : this.segments;
    return new ArmPath<Exclude<P, Last>, never>(segments);
  }

  /** The ARM resource type, e.g. `Microsoft.Migrate/assessmentProjects/clusterAssessments`. */
  get resourceType(): string {
    const types: string[] = [];
    for (const segment of this.segments) {
      if (!("text" in segment)) continue;
      const provider = /^providers\/(.+)$/i.exec(segment.text);
      if (provider?.[1] !== undefined) types.splice(0, types.length, provider[1]);
      else types.push(segment.text);
    }
    return types.join("/");
  }

  /** The Functions route template, without the leading '/': `subscriptions/{subscriptionId}/…`. */
  get route(): string {
    return this.segments
      .map((segment) => ("param" in segment ? `{${segment.param}}` : segment.text))
      .join("/");
  }

  /** The id (`/subscriptions/…`), each value written by `encode`: as given, by default. */
  id(values: PathValues<P>, encode?: Encode<P>): string {
    return this.segments
      .map((segment) => {
        if (!("param" in segment)) return `/${segment.text}`;
        const value = values[segment.param as P];
        return `/${encode ? encode(value, segment.param as P) : value}`;
      })
      .join("");
  }

  /** The id of the resource named `name` below the parent whose id is given (in any casing). */
  idUnder(parentId: string, name: string): string {
    return `${parentId}${this.lastLevel()}/${name}`;
  }

  /** The values of an id of this path; undefined when the id is not one. Values are not decoded. */
  parse(id: string, options: ParseOptions = {}): PathValues<P> | undefined {
    const match = (options.trailingSlash ? this.patternWithSlash : this.pattern).exec(id);
    if (!match) return undefined;
    const values: Record<string, string> = {};
    this.params.forEach((param, index) => {
      values[param] = match[index + 1] as string;
    });
    return values as PathValues<P>;
  }

  /** An id of this path split into its parent's id, as written, and the resource's name. */
  split(id: string): { parentId: string; name: string } | undefined {
    const values = this.parse(id);
    const last = this.params[this.params.length - 1];
    if (values === undefined || last === undefined) return undefined;
    const name = values[last];
    // Fixed text matches character for character, so the suffix has the length it is written with.
    return { parentId: id.slice(0, id.length - `${this.lastLevel()}/${name}`.length), name };
  }

  /** The last resource type segment, '/'-prefixed. */
  private lastLevel(): string {
    const type = this.segments[this.segments.length - 2];
    if (type === undefined || !("text" in type)) throw new Error(`${this.route} names no child resource`);
    return `/${type.text}`;
  }
}

/** Subscription and resource group: the scope of the ARM resources below. */
export const RESOURCE_GROUP_PATH = ArmPath.ROOT.child("subscriptions", "subscriptionId").child(
  "resourceGroups",
  "resourceGroupName",
);

export const TWINS_INSTANCE_PATH = RESOURCE_GROUP_PATH.child(
  "providers/Microsoft.DigitalTwins/digitalTwinsInstances",
  "instanceName",
);

export const QUEUE_ENDPOINT_PATH = TWINS_INSTANCE_PATH.child("endpoints", "endpointName");

export const EVENT_ROUTE_PATH = TWINS_INSTANCE_PATH.child("eventRoutes", "eventRouteName");

/** Event ingest, an action on the instance. */
export const TWIN_EVENTS_PATH = TWINS_INSTANCE_PATH.action("events");

export const ASSESSMENT_PROJECT_PATH = RESOURCE_GROUP_PATH.child(
  "providers/Microsoft.Migrate/assessmentProjects",
  "projectName",
);

export const CLUSTER_ASSESSMENT_PATH = ASSESSMENT_PROJECT_PATH.child("clusterAssessments", "assessmentName");

/** Profiles are the service's own, at its root rather than below a resource group. */
export const AUTHENTICATION_PROFILE_PATH = ArmPath.ROOT.child(
  "authenticationProfiles",
  "authenticationProfileName",
);
