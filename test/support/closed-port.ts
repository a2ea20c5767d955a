import { freePort } from "../../dev/ports";

/** A port nothing listens on, for pointing a client at a dependency that is down. */
export const closedPort = freePort;
