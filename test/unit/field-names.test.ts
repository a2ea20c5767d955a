import { InvalidRequestContent } from "../../src/common/errors";
import { camelCaseKeys } from "../../src/http/field-names";
import { thrown } from "../support/thrown";

describe("camelCaseKeys", () => {
  it("renames snake_case keys at every depth and keeps camelCase ones", () => {
    expect(
      camelCaseKeys({
        authentication_profile_content: "{}",
        settings: { cloud_location: "x", performanceData: { time_range: "Day" } },
        list: [{ a_b: 1 }],
      }),
    ).toEqual({
      authenticationProfileContent: "{}",
      settings: { cloudLocation: "x", performanceData: { timeRange: "Day" } },
      list: [{ aB: 1 }],
    });
  });

  it("leaves values alone, even strings that look like keys", () => {
    expect(camelCaseKeys({ name: "snake_case_value" })).toEqual({ name: "snake_case_value" });
  });

  it("refuses both spellings of one field, naming it", () => {
    expect(() => camelCaseKeys({ authenticationProfileName: "a", authentication_profile_name: "b" })).toThrow(
      InvalidRequestContent,
    );
    const error = thrown(() => camelCaseKeys({ outer: { fooBar: 1, foo_bar: 2 } }));
    expect((error as InvalidRequestContent).target).toBe("outer.fooBar");
  });
});
