type Jose = typeof import("jose");

/** A sentence for a token jose refused, from its error class; never the token or its values. */
export function describeTokenFailure(jose: Jose, error: unknown): string {
  const { errors } = jose;
  if (error instanceof errors.JWTExpired) return "The token has expired: get a new one.";
  if (error instanceof errors.JWTClaimValidationFailed)
    return `The token's '${error.claim}' claim is not valid (${error.reason}).`;
  if (error instanceof errors.JWKSNoMatchingKey)
    return "The token is signed with a key the authority does not publish.";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The token's signature is not valid.";
  if (error instanceof errors.JOSEAlgNotAllowed) return "The token's signing algorithm is not accepted.";
  if (error instanceof errors.JOSEError) return "The token is not a valid signed JWT.";
  return "The token could not be validated.";
}
