import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { McpConnection } from "../src/index.js"
import { fixture, weather } from "./support.js"

describe("McpConnection against hostile servers", () => {
  it.scopedLive("a listing that pages for ever ends at the page limit", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: fixture([], "pages-forever"), limits: { maxPages: 5 } })
      const error = yield* Effect.flip(connection.listTools)
      assert.strictEqual(error._tag, "McpLimitExceeded")
      assert.deepInclude(error, { limit: "pages", max: 5 })
    }))

  it.scopedLive("a 50 MB schema ends at the byte limit", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: fixture([], "huge-schema"), limits: { maxMessageBytes: 1024 * 1024 } })
      const error = yield* Effect.flip(connection.listTools)
      assert.strictEqual(error._tag, "McpLimitExceeded", error.message)
      assert.deepInclude(error, { limit: "bytes" })
    }))

  it.scopedLive("a call that never answers times out", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: fixture([{ ...weather, answer: "hang" }]) })
      const error = yield* Effect.flip(connection.callTool("get_weather", { city: "Oslo" }, { timeout: "300 millis" }))
      assert.strictEqual(error._tag, "McpTimeout")
    }))

  it.scopedLive("a server that dies mid-call is unavailable", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: fixture([{ ...weather, answer: "die" }]) })
      const error = yield* Effect.flip(connection.callTool("get_weather", { city: "Oslo" }))
      assert.strictEqual(error._tag, "McpUnavailable")
      yield* connection.closed
    }))

  it.scopedLive("garbage on stdout does not stop the answers", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: fixture([weather], "garbage-stdout") })
      const { tools } = yield* connection.listTools
      assert.strictEqual(tools.length, 1)
    }))

  it.scopedLive("list_changed signals coalesce", () =>
    Effect.gen(function*() {
      const connection = yield* McpConnection.make({ server: fixture([weather], "list-changed-loop") })
      const changes = yield* connection.listChanged
      yield* connection.listTools
      yield* Queue.take(changes)
      assert.isAtMost(yield* Queue.size(changes), 1)
    }))

})
