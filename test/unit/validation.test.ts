import { z } from "zod";
import { InvalidRequestContent } from "../../src/common/errors";
import { parseOrThrow } from "../../src/http/validation";
import { thrown } from "../support/thrown";

// The summary message of a 400 counts what it names: fields, with the problems counted apart.
const twoRules = z.string().superRefine((text, ctx) => {
  if (!text.startsWith("a")) ctx.addIssue({ code: "custom", message: "must start with a" });
  if (!text.endsWith("z")) ctx.addIssue({ code: "custom", message: "must end with z" });
});
const schema = z.object({ first: twoRules, second: twoRules, third: z.number().optional() });

function errorOf(input: unknown): InvalidRequestContent {
  const error = thrown(() => parseOrThrow(schema, input));
  expect(error).toBeInstanceOf(InvalidRequestContent);
  return error as InvalidRequestContent;
}

describe("parseOrThrow", () => {
  it("counts the fields it names, and the problems apart, when a field has several", () => {
    const error = errorOf({ first: "bad", second: "bad" });
    expect(error.details).toHaveLength(4);
    expect(error.message).toBe(
      "The request has 2 invalid fields: first, second (4 problems, each listed in details).",
    );
  });

  it("says 1 invalid field when one field has several problems", () => {
    const error = errorOf({ first: "bad", second: "abz" });
    expect(error.details).toHaveLength(2);
    expect(error.message).toBe(
      "The request has 1 invalid field: first (2 problems, each listed in details).",
    );
  });

  it("counts fields alone when each has one problem", () => {
    const error = errorOf({ first: "bbz", second: "abz", third: "x" });
    expect(error.message).toBe("The request has 2 invalid fields: first, third.");
  });

  it("gives the one problem's own message when there is one", () => {
    expect(errorOf({ first: "abz", second: "abz", third: "x" }).message).toBe(
      "The field 'third' must be a number, but it is a string.",
    );
  });
});
