import { createHash } from "node:crypto";
import type { Container } from "@azure/cosmos";
import { PreconditionFailed } from "../common/errors";
import { Conflict } from "../store/cosmos-errors";
import { DocumentStore, type Stored } from "../store/document-store";

/**
 * One (principal, role, scope) is stored once, under races on any number of hosts (CONTRACT §6).
 *
 * An assignment's document is keyed by its name, so Cosmos keeps names unique but not tuples, and a
 * query for the tuple before the create lets racing PUTs of other names all pass it. So each tuple
 * has one more document, its claim, keyed by a hash of the tuple (Cosmos creates an id once) and
 * naming the assignment that holds it. A PUT of a new name claims the tuple (create, or an If-Match
 * replace of a claim that no stored assignment backs), writes its assignment, then confirms the claim
 * with an If-Match replace: if another PUT took the claim over meanwhile, the confirm fails and this
 * PUT withdraws its document, so of racers exactly one keeps one. A claim names an assignment that
 * is not stored when its PUT is still writing it, or stopped halfway (a crash), or when the
 * assignment was deleted and the claim not (yet) with it: a fresh unconfirmed claim is waited for;
 * any other is taken over, so nothing left half-done holds a tuple longer than CLAIM_LEASE_MS.
 *
 * Claims live in the assignments' container, partitioned by their own id like the assignments,
 * and have no `principalId` nor `scopeKeyPath`: list and grant queries, which select on those,
 * never see them.
 */
export const CLAIM_KIND = "roleAssignmentTuple";

/**
 * How long an unconfirmed claim of an assignment not yet stored counts as a PUT's work in progress:
 * far longer than a PUT takes, throttled or not (cosmos-client.ts gives a store call a few seconds).
 * A PUT stalled past it is taken over and withdraws when it wakes; only one that then also dies
 * between writing its assignment and withdrawing it could leave a second assignment behind.
 */
export const CLAIM_LEASE_MS = 60_000;

/** What must be unique among assignments. */
export interface AssignmentTuple {
  /** Lower-cased. */
  principalId: string;
  /** The role definition's GUID. */
  roleDefinition: string;
  scopeKeyPath: string;
}

export interface ClaimDocument {
  id: string;
  claimKind: typeof CLAIM_KIND;
  /** The document id (the name's key) of the assignment that holds the tuple, or is being created to. */
  assignment: string;
  /** Set once that assignment's document was written under this claim. */
  confirmed: boolean;
  /** When the assignment was claimed (ISO 8601). */
  claimedAt: string;
}

/** The claim's id: a hash, so it fits any scope's length and never looks like an assignment's GUID. */
export function claimId(tuple: AssignmentTuple): string {
  const key = JSON.stringify([tuple.principalId, tuple.roleDefinition, tuple.scopeKeyPath]);
  return `claim-${createHash("sha256").update(key).digest("hex")}`;
}

export function sameTuple(a: AssignmentTuple, b: AssignmentTuple): boolean {
  return (
    a.principalId === b.principalId &&
    a.roleDefinition === b.roleDefinition &&
    a.scopeKeyPath === b.scopeKeyPath
  );
}

/** Whether the claim may be taken from an assignment that is not stored (see above). */
export function abandoned(claim: ClaimDocument, now: number): boolean {
  const age = now - Date.parse(claim.claimedAt);
  return claim.confirmed || !(age < CLAIM_LEASE_MS);
}

export class AssignmentClaims {
  private readonly store: DocumentStore<ClaimDocument>;

  constructor(container: Container) {
    this.store = new DocumentStore<ClaimDocument>(container, (claim) => claim.id);
  }

  read(tuple: AssignmentTuple): Promise<Stored<ClaimDocument> | undefined> {
    const id = claimId(tuple);
    return this.store.read(id, id);
  }

  /** Claims the tuple for `assignment` unless it has a claim: the claim's etag, or undefined. */
  async create(tuple: AssignmentTuple, assignment: string): Promise<string | undefined> {
    try {
      return (await this.store.create(claimOf(tuple, assignment, false)))._etag;
    } catch (error) {
      if (error instanceof Conflict) return undefined;
      throw error;
    }
  }

  /**
   * Replaces the claim's version `etag`: with a fresh claim for `assignment`, or, `confirmed`, with
   * its confirmation. The new etag, or undefined when someone else changed or deleted the claim.
   */
  async replace(
    tuple: AssignmentTuple,
    assignment: string,
    etag: string,
    confirmed: boolean,
  ): Promise<string | undefined> {
    try {
      return (await this.store.replace(claimOf(tuple, assignment, confirmed), etag))._etag;
    } catch (error) {
      if (error instanceof PreconditionFailed) return undefined;
      throw error;
    }
  }

  /** Frees the tuple for another name, if its claim still names `assignment` (else it is another's). */
  async release(tuple: AssignmentTuple, assignment: string): Promise<void> {
    const claim = await this.read(tuple);
    if (claim?.assignment === assignment) await this.store.delete(claim.id, claim.id, claim._etag);
  }
}

function claimOf(tuple: AssignmentTuple, assignment: string, confirmed: boolean): ClaimDocument {
  return {
    id: claimId(tuple),
    claimKind: CLAIM_KIND,
    assignment,
    confirmed,
    claimedAt: new Date().toISOString(),
  };
}
