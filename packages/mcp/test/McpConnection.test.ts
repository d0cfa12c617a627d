import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { McpConnection } from "../src/index.js"
import { everything, filesystem, fixture, weather } from "./support.js"

describe("McpConnection", () => {
  it.scopedLive("lists and calls the real everything server over stdio", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: everything() })
      const { problems, tools } = yield* connection.listTools
      assert.deepStrictEqual(problems, [])
      const echo = tools.find((t) => t.name === "echo")
      assert.isDefined(echo)
      const result = yield* connection.callTool("echo", { message: "hi" })
      assert.isFalse(result.isError)
      assert.include(JSON.stringify(result.content), "hi")
    }))

  it.scopedLive("reads a directory through the real filesystem server", () =>
    Effect.gen(function*() {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-mcp-")))
      fs.writeFileSync(path.join(dir, "a.txt"), "alpha")
      const connection = yield* McpConnection.make({ server: filesystem(dir) })
      const { tools } = yield* connection.listTools
      assert.isTrue(tools.some((t) => t.name === "read_text_file"))
      const result = yield* connection.callTool("read_text_file", { path: path.join(dir, "a.txt") })
      assert.include(JSON.stringify(result.content), "alpha")
    }))

  it.scopedLive("follows nextCursor and passes _meta", () =>
    Effect.gen(function*() {
      const other = { ...weather, name: "other" }
      const connection = yield* McpConnection.make({ server: fixture([weather, other], "cursor-pages") })
      const { tools } = yield* connection.listTools
      assert.deepStrictEqual(tools.map((t) => t.name), ["get_weather", "other"])
      const result = yield* connection.callTool("get_weather", { city: "Oslo" }, { meta: { "dev.toolgate/idempotency-key": "k1" } })
      assert.deepStrictEqual(result.structuredContent, { args: { city: "Oslo" }, meta: { "dev.toolgate/idempotency-key": "k1" } })
      assert.isTrue(connection.announcesListChanged)
    }))

  it.scopedLive("a command that does not exist is unavailable", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(McpConnection.make({ server: { _tag: "Stdio", command: "/nonexistent/toolgate-mcp" } }))
      assert.strictEqual(error._tag, "McpUnavailable")
    }))

  it.effect("bad options are InvalidOptions", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(McpConnection.make({ server: { _tag: "StreamableHttp", url: "ftp://x" } }).pipe(Effect.scoped))
      assert.strictEqual(error._tag, "InvalidOptions")
    }))
})
