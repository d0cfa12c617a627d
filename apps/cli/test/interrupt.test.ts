import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { resolve } from "node:path"
import { root } from "./toolgate.js"

// A relay that accepts every request and never answers: the command is still waiting when Ctrl-C comes.
describe("Ctrl-C (the process)", () => {
  it("a waiting command ends with exit 130 and no stack trace", async () => {
    const server = http.createServer(() => undefined)
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const child = spawn(process.execPath, [resolve(root, "apps/cli/bin/toolgate.js"), "check", "--tools-json", "{}", "--relay", url, "--timeout", "60"], {
      cwd: root
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    try {
      const connected = new Promise<void>((ok) => server.once("request", () => ok()))
      await connected
      const exited = new Promise<number | null>((ok) => child.on("close", (code) => ok(code)))
      child.kill("SIGINT")
      assert.strictEqual(await exited, 130)
      assert.notMatch(stderr, /\n\s+at /)
    } finally {
      child.kill("SIGKILL")
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    }
  }, 60_000)
})
