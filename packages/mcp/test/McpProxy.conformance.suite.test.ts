import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { McpProxy } from "../src/index.js"
import { everything, root, tsx } from "./McpProxySupport.js"

const cli = resolve(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js")

/** The fixture with every tool, resource and prompt the suite's server scenarios call by name. */
const conformanceFixture = {
  _tag: "Stdio" as const,
  command: process.execPath,
  args: tsx(resolve(dirname(fileURLToPath(import.meta.url)), "fixtures/proxyFixtureConformance.ts")),
  cwd: root
}

interface Check {
  readonly id: string
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED"
  readonly errorMessage?: string
}

/** Runs `@modelcontextprotocol/conformance server --suite all` against `url`; every check of every scenario, by scenario. */
const conformance = (url: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "toolgate-conformance-"))),
    (dir) =>
      Effect.async<Map<string, ReadonlyArray<Check>>>((resume) => {
        execFile(process.execPath, [cli, "server", "--url", url, "--suite", "all", "-o", dir], { cwd: dir, timeout: 240_000 }, () => {
          const byScenario = new Map<string, ReadonlyArray<Check>>()
          for (const entry of readdirSync(dir)) {
            const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "")
            byScenario.set(scenario, JSON.parse(readFileSync(join(dir, entry, "checks.json"), "utf8")))
          }
          resume(Effect.succeed(byScenario))
        })
      }),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

const failures = (results: Map<string, ReadonlyArray<Check>>, scenarios?: ReadonlyArray<string>) =>
  [...results].filter(([s]) => scenarios === undefined || scenarios.includes(s))
    .flatMap(([s, checks]) => checks.filter((c) => c.status === "FAILURE").map((c) => `${s}/${c.id}: ${c.errorMessage}`))

// The MCP conformance suite (server scenarios) against the proxy served over Streamable HTTP.
describe("McpProxy under the MCP conformance suite", () => {
  it.scopedLive("passes every server scenario in front of a server that has what they call", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: conformanceFixture })
      const results = yield* conformance(proxy.url)
      assert.isAtLeast(results.size, 30)
      assert.deepStrictEqual(failures(results), [])
      const checks = [...results.values()].flat()
      assert.isAtLeast(checks.filter((c) => c.status === "SUCCESS").length, 40)
    }), { timeout: 300_000 })

  it.scopedLive("passes the scenarios that apply in front of server-everything", () =>
    Effect.gen(function*() {
      const proxy = yield* McpProxy.serveHttp({ server: everything })
      const results = yield* conformance(proxy.url)
      // the others call tools, resources and prompts by names only the suite's reference server has
      const applying = [
        "server-initialize",
        "logging-set-level",
        "ping",
        "tools-list",
        "resources-list",
        "resources-subscribe",
        "resources-unsubscribe",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection"
      ]
      for (const scenario of applying) assert.isTrue(results.has(scenario), scenario)
      assert.deepStrictEqual(failures(results, applying), [])
    }), { timeout: 300_000 })
})
