import { planStack } from "../../dev/stack-plan";
import { loadConfig } from "../../src/config";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// `npm start` runs the stand-ins on loopback, so endpoints may point there (docs/api.md).
const base = {
  FUNCTION_KEY: "f",
  MASTER_KEY: "m",
  LOCAL_DATA_DIR: tempDir("stack-plan-loopback-"),
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString("base64"),
};

afterAll(removeTempDirs);

describe("the local stack's settings", () => {
  it("admit loopback endpoints", () => {
    const settings = planStack(base).settings;
    expect(settings.ALLOW_LOOPBACK_ENDPOINTS).toBe("true");
    expect(loadConfig(settings).ALLOW_LOOPBACK_ENDPOINTS).toBe(true);
  });

  it("keep a developer's own choice", () => {
    expect(planStack({ ...base, ALLOW_LOOPBACK_ENDPOINTS: "false" }).settings.ALLOW_LOOPBACK_ENDPOINTS).toBe(
      "false",
    );
  });
});
