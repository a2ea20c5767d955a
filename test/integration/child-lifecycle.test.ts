import { spawn } from "node:child_process";
import * as path from "node:path";

// A launcher that goes away while its child starts (Ctrl+C early, a test stopping a stack at once):
// the child's late "ready" must not crash it with an unhandled ERR_IPC_CHANNEL_CLOSED; it stops
// through its 'disconnect' handler and exits 0. Runs the built module, as the launcher does.
const LIFECYCLE = path.join(__dirname, "..", "..", "dist", "dev", "child-lifecycle.js");

it("stops cleanly when the launcher is gone before the child reports ready", async () => {
  const script = `
    const { reportReady, stopOnSignal } = require(${JSON.stringify(LIFECYCLE)});
    stopOnSignal("child", () => new Promise((resolve) => setTimeout(resolve, 300)));
    setTimeout(reportReady, 100);
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.disconnect();
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
});
