import type { RoleDefinition } from "./role-definitions";

const compiled = new Map<string, RegExp>();

/**
 * Whether an action such as `Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read` matches a
 * pattern of a role (`*`, `*\/read`, `Microsoft.Authorization/*\/write`): case-insensitive, `*`
 * standing for any run of characters, '/' included, as in Azure's role definitions.
 */
export function actionMatches(pattern: string, action: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const body = pattern
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    regex = new RegExp(`^${body}$`, "i");
    compiled.set(pattern, regex);
  }
  return regex.test(action);
}

/** Whether the role allows the action: one of its Actions matches and none of its NotActions does. */
export function rolePermits(role: RoleDefinition, action: string): boolean {
  return (
    role.actions.some((pattern) => actionMatches(pattern, action)) &&
    !role.notActions.some((pattern) => actionMatches(pattern, action))
  );
}
