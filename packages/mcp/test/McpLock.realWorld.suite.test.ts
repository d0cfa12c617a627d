/**
 * Real MCP servers from npm (see ./realWorld.ts): each is spawned over stdio, locked, and its live listing
 * proved against that lock, against the corpus's capture of the same version, and against locks mutated
 * the ways a server drifts. Every witness of drift is confirmed by the validator: the lock accepts it, the
 * live schema rejects it.
 */
import { assert, describe, it } from "@effect/vitest"
import { type JsonSchema, Validator } from "@toolgate/json-schema"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Either } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { McpConnection, McpLock, McpTools } from "../src/index.js"
import { captured, editAt, installed, type RealServer, root, servers, stdio, subschemas } from "./realWorld.js"
import { tsx } from "./support.js"

type Json = Record<string, unknown>

const listing = (server: RealServer) =>
  Effect.gen(function*() {
    const connection = yield* McpConnection.make({ server: stdio(server) })
    const { problems, tools } = yield* connection.listTools
    return { info: connection.serverInfo, tools, problems }
  }).pipe(Effect.scoped)

const accepts = (schema: Json, value: unknown): boolean =>
  Either.getOrThrow(Validator.compile(schema as JsonSchema.JsonSchema)).isValid(value)

/** The lock `entry` with `tool`'s input schema replaced. */
const withInput = (entry: McpLock.LockedServer, tool: string, inputSchema: Json): McpLock.LockedServer => ({
  ...entry,
  tools: { ...entry.tools, [tool]: { ...entry.tools[tool]!, inputSchema } }
})

/** The one verdict of `tool` when `live` is proved against `entry`. */
const verdictOf = (entry: McpLock.LockedServer, live: ReadonlyArray<McpConnection.McpTool>, tool: string) =>
  McpLock.prove(entry, live).rows.find((r) => r.tool === tool)!

/** A drift whose witness the locked schema accepts and the live one rejects. */
const assertConfirmedDrift = (entry: McpLock.LockedServer, live: McpConnection.McpTool, what: string) => {
  const row = verdictOf(entry, [live], live.name)
  assert.strictEqual(row._tag, "Drift", `${live.name}: ${what} is drift (${JSON.stringify(row)})`)
  if (row._tag !== "Drift") return
  assert.isTrue(accepts(entry.tools[live.name]!.inputSchema, row.witness), `${live.name}: the lock accepts the witness of ${what}`)
  assert.isFalse(accepts(live.inputSchema, row.witness), `${live.name}: the live schema rejects the witness of ${what}`)
}

const isStringEnum = (node: Json): boolean =>
  Array.isArray(node["enum"]) && node["enum"].length > 0 && node["enum"].every((v) => typeof v === "string")

describe("McpLock against real MCP servers from npm", () => {
  for (const server of servers) {
    describe(server.pkg, () => {
      it.live("its lock proves against the live server, through McpTools too", () =>
        Effect.gen(function*() {
          const live = yield* listing(server)
          assert.isAbove(live.tools.length, 0)
          assert.deepStrictEqual(live.problems, [])
          const entry = McpLock.fromListing(live.info, live.tools)
          const proof = McpLock.prove(entry, live.tools)
          assert.deepStrictEqual(proof.rows.filter((r) => r._tag !== "Subtype"), [])
          assert.deepStrictEqual([proof.added, proof.described, proof.badNames], [[], [], []])
          const lock = McpLock.put(undefined, live.info.name, McpLock.defaultScope, entry)
          const tools = yield* McpTools.make({ server: stdio(server), lock })
          assert.isTrue(Either.isRight(McpTools.verdict(tools)))
          assert.deepStrictEqual(tools.problems, [])
          assert.strictEqual(tools.toolkit.tools.size, live.tools.length)
        }).pipe(Effect.scoped), { timeout: 60_000 })

      it.live(`the corpus's capture of the same version, as a lock: ${server.corpusDrift.length === 0 ? "proven" : `${server.corpusDrift.join(", ")} drifted`}`, () =>
        Effect.gen(function*() {
          const capture = captured(server)
          assert.strictEqual(installed(server.pkg).version, capture.version)
          const live = yield* listing(server)
          assert.deepStrictEqual(live.info, { name: capture.serverInfo.name, version: capture.serverInfo.version })
          assert.sameMembers(live.tools.map((t) => t.name), capture.tools.map((t) => t.name))
          const entry = McpLock.fromListing(capture.serverInfo, capture.tools)
          const proof = McpLock.prove(entry, live.tools)
          assert.deepStrictEqual(proof.rows.filter((r) => r._tag !== "Subtype").map((r) => r.tool), [...server.corpusDrift])
          for (const name of server.corpusDrift) assertConfirmedDrift(entry, live.tools.find((t) => t.name === name)!, "the capture's schema")
          assert.deepStrictEqual(proof.described, [])
        }), { timeout: 60_000 })

      it.live("a narrowed enum, a new required field and a removed tool drift with confirmed witnesses; widenings pass", () =>
        Effect.gen(function*() {
          const live = yield* listing(server)
          const entry = McpLock.fromListing(live.info, live.tools)
          let cases = 0
          for (const tool of live.tools) {
            const schema = entry.tools[tool.name]!.inputSchema
            const at = subschemas(schema).findIndex(isStringEnum)
            if (at >= 0) {
              // the lock allowed one more value than the server now does
              assertConfirmedDrift(withInput(entry, tool.name, editAt(schema, at, (n) => void (n["enum"] = [...(n["enum"] as Array<string>), "toolgate-removed-value"]))), tool, "a narrowed enum")
              const values = subschemas(schema)[at]!["enum"] as Array<string>
              if (values.length > 1) {
                const narrower = withInput(entry, tool.name, editAt(schema, at, (n) => void (n["enum"] = values.slice(1))))
                assert.strictEqual(verdictOf(narrower, [tool], tool.name)._tag, "Subtype", `${tool.name}: a widened enum passes`)
              }
              cases++
            }
            const required = Array.isArray(schema["required"]) ? schema["required"] as Array<string> : []
            if (required.length > 0) {
              // the server now requires a field the lock left optional
              assertConfirmedDrift(withInput(entry, tool.name, { ...schema, required: required.slice(1) }), tool, "a new required field")
              cases++
            }
            const optional = Object.keys((schema["properties"] ?? {}) as Json).find((p) => !required.includes(p))
            if (optional !== undefined) {
              const stricter = withInput(entry, tool.name, { ...schema, required: [...required, optional] })
              assert.strictEqual(verdictOf(stricter, [tool], tool.name)._tag, "Subtype", `${tool.name}: a field no longer required passes`)
            }
          }
          assert.isAbove(cases, 0)
          const removed = { ...entry, tools: { ...entry.tools, toolgate_removed_tool: { descriptionHash: McpLock.hashDescription("gone"), inputSchema: { type: "object" } } } }
          const error = yield* Effect.flip(McpTools.make({ server: stdio(server), lock: McpLock.put(undefined, live.info.name, McpLock.defaultScope, removed) }))
          assert.strictEqual(error._tag, "SchemaDriftError")
          assert.deepStrictEqual(error._tag === "SchemaDriftError" ? error.drifted : [], ["toolgate_removed_tool"])
        }).pipe(Effect.scoped), { timeout: 120_000 })
    })
  }
})

/** `toolgate …` from the CLI's sources (no build needed), its exit code and output. */
const toolgate = (...args: Array<string>) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string }>((resume) => {
    const child = spawn(process.execPath, ["--import", tsx, "--conditions=@toolgate/source", path.join(root, "apps/cli/src/bin.ts"), ...args], { cwd: root, timeout: 90_000 })
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout })))
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

describe("toolgate check --mcp against a real server", () => {
  it.live("server-memory against its lock: 0 proven; against a lock it no longer matches: 1 drift", () =>
    Effect.gen(function*() {
      const memory = servers[0]!
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-real-mcp-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      const live = yield* listing(memory)
      const entry = McpLock.fromListing(live.info, live.tools)
      const lockFile = path.join(dir, "toolgate.lock.json")
      yield* McpLock.write(lockFile, McpLock.put(undefined, live.info.name, McpLock.defaultScope, entry))
      const command = `"${process.execPath}" "${installed(memory.pkg).bin}"`
      const proven = yield* toolgate("check", "--mcp", command, "--lock", lockFile, "--json")
      assert.strictEqual(proven.code, 0, proven.stdout)
      assert.deepInclude(JSON.parse(proven.stdout), { exitCode: 0, summary: { proven: live.tools.length, drifted: 0, unknown: 0, unsupported: 0 } })

      const search = entry.tools["search_nodes"]!.inputSchema
      const stale = withInput(entry, "search_nodes", { ...search, required: [] })
      yield* McpLock.write(lockFile, McpLock.put(undefined, live.info.name, McpLock.defaultScope, stale))
      const drift = yield* toolgate("check", "--mcp", command, "--lock", lockFile, "--json")
      assert.strictEqual(drift.code, 1, drift.stdout)
      const report = JSON.parse(drift.stdout)
      assert.deepInclude(report, { exitCode: 1, summary: { proven: live.tools.length - 1, drifted: 1, unknown: 0, unsupported: 0 } })
      // the witness is a search without the query the server now requires
      const drifted = report.rows.filter((r: { _tag: string }) => r._tag === "Drift")
      assert.deepStrictEqual(drifted.map((r: { tool: string; witness: unknown }) => [r.tool, r.witness]), [["search_nodes", {}]])
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)), { timeout: 120_000 })
})
