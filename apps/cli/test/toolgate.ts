import { spawn, spawnSync } from "node:child_process"
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

/** Runs the real `toolgate` bin without blocking the test's event loop (so a server in the test can answer it). */
export const toolgateAsync = (...args: Array<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const child = spawn(process.execPath, [resolve(root, "apps/cli/bin/toolgate.js"), ...args], { cwd: root, timeout: 60_000 })
    let stdout = "", stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("close", (code) => done({ code, stdout, stderr }))
  })
