import { resourceRoutes } from "../http/resource-routes";
import { assessmentExamples } from "./assessment-examples";
import { assessmentPathSchema, PROJECT_ROUTE, projectPathSchema } from "./assessment-path";
import { ASSESSMENT_API_VERSIONS, assessmentPutSchema, clusterAssessmentSchema } from "./assessment-schema";

/** Reads with the function key; writes (PUT, DELETE) only for the producing system, with the master key. */
export const assessmentRoutes = resourceRoutes({
  name: "clusterAssessments",
  noun: "cluster assessment",
  tag: "ClusterAssessment",
  collectionRoute: `${PROJECT_ROUTE}/clusterAssessments`,
  itemRoute: `${PROJECT_ROUTE}/clusterAssessments/{assessmentName}`,
  apiVersions: ASSESSMENT_API_VERSIONS,
  collectionPath: projectPathSchema,
  itemPath: assessmentPathSchema,
  putBody: assessmentPutSchema,
  writeAuthLevel: "admin",
  resourceSchema: clusterAssessmentSchema,
  examples: assessmentExamples,
  service: (services) => services.assessments,
});
