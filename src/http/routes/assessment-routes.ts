import { assessmentExamples } from "../../assessments/assessment-examples";
import { assessmentPathSchema, projectPathSchema } from "../../assessments/assessment-path";
import { assessmentPutSchema, clusterAssessmentSchema } from "../../assessments/assessment-schema";
import { ASSESSMENT_API_VERSIONS } from "../../common/api-versions";
import { CLUSTER_ASSESSMENT_PATH } from "../../common/arm-path";
import { deleteRoute, getRoute, listRoute, putRoute, resourceSpec } from "../resource-operations";
import type { RouteOperation } from "../route";

/** Reads with the function key; writes (PUT, DELETE) only for the producing system, with the master key. */
const assessments = resourceSpec({
  noun: "cluster assessment",
  tag: "ClusterAssessment",
  collectionRoute: CLUSTER_ASSESSMENT_PATH.collection.route,
  apiVersions: ASSESSMENT_API_VERSIONS,
  collectionPath: projectPathSchema,
  itemPath: assessmentPathSchema,
  putBody: assessmentPutSchema,
  resourceSchema: clusterAssessmentSchema,
  examples: assessmentExamples,
  service: (services) => services.assessments,
});

/** The operations of the clusterAssessments rows of the route table. */
export const assessmentOperations = {
  list: listRoute(assessments),
  get: getRoute(assessments),
  put: putRoute(assessments),
  delete: deleteRoute(assessments),
} satisfies Record<string, RouteOperation>;
