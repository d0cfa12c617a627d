import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { tsx } from "./support.js"

const cli = resolve(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js")
const client = resolve(dirname(fileURLToPath(import.meta.url)), "fixtures/conformanceClient.ts")
const command = [process.execPath, "--import", tsx, "--conditions=@toolgate/source", client].join(" ")

interface Check {
  readonly id: string
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED"
  readonly errorMessage?: string
}

/** Runs `@modelcontextprotocol/conformance client --scenario <scenario>` against the toolgate client: its checks and the client's stdout. */
const conformance = (scenario: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "toolgate-conformance-client-"))),
    (dir) =>
      Effect.async<{ readonly checks: ReadonlyArray<Check>; readonly stdout: string }>((resume) => {
        execFile(process.execPath, [cli, "client", "--command", command, "--scenario", scenario, "-o", dir], { cwd: dir, timeout: 120_000 }, () => {
          const [result] = readdirSync(dir)
          resume(Effect.succeed(result === undefined ? { checks: [], stdout: "" } : {
            checks: JSON.parse(readFileSync(join(dir, result, "checks.json"), "utf8")),
            stdout: readFileSync(join(dir, result, "stdout.txt"), "utf8")
          }))
        })
      }),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

const envelopes = (stdout: string) => stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))

// The MCP conformance suite's client scenarios that apply to a tools client, against McpConnection and McpTools.
describe("McpConnection under the MCP conformance suite (client scenarios)", () => {
  const expected: ReadonlyArray<readonly [scenario: string, successes: ReadonlyArray<string>, tool: string | undefined]> = [
    ["initialize", ["mcp-client-initialization"], undefined],
    ["tools_call", ["tool-add-numbers"], "add_numbers"],
    ["sse-retry", ["client-sse-graceful-reconnect", "client-sse-retry-timing", "client-sse-last-event-id"], "test_reconnection"]
  ]
  for (const [scenario, successes, tool] of expected) {
    it.live(`passes ${scenario}`, () =>
      Effect.gen(function*() {
        const { checks, stdout } = yield* conformance(scenario)
        assert.deepStrictEqual(checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING").map((c) => `${c.id}: ${c.errorMessage}`), [])
        assert.includeMembers(checks.filter((c) => c.status === "SUCCESS").map((c) => c.id), [...successes])
        if (tool !== undefined) assert.deepInclude(envelopes(stdout).map((e) => ({ ok: e.ok, tool: e.tool })), { ok: true, tool })
      }), { timeout: 150_000 })
  }
})
