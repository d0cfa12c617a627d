import { spawnSync } from "node:child_process"
import { resolve } from "node:path"

/** The repository root: the working directory of every process the tests start. */
export const root = resolve(import.meta.dirname, "../../..")

/** Runs the real `toolgate` bin (so the exit codes a CI script sees are the ones tested). */
export const toolgate = (...args: Array<string>) => {
  const result = spawnSync(process.execPath, [resolve(root, "apps/cli/bin/toolgate.js"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}
