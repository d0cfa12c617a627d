import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { envelope, profileClient, type Handler, start } from "./support/relayDouble.js"

/** Streams an endless JSON string (1 MiB pieces, with backpressure) until the client goes away; counts bytes sent. */
const endless = (sent: { bytes: number }): Handler => (_req, res) => {
  res.writeHead(200, { "content-type": "application/json" })
  const piece = Buffer.alloc(1024 * 1024, "x")
  let open = true
  res.on("close", () => void (open = false))
  res.write("{\"capabilities_version\":\"1.0\",\"padding\":\"")
  const pump = () => {
    while (open && sent.bytes < 2 * 1024 * 1024 * 1024) {
      sent.bytes += piece.length
      if (!res.write(piece)) return void res.once("drain", pump)
    }
  }
  pump()
}

describe("RelayProfileClient: bounded bodies over loopback", () => {
  it.scopedLive("an endless body stops at the limit with a typed malformed error; memory stays bounded", () =>
    Effect.gen(function*() {
      const sent = { bytes: 0 }
      const relay = yield* start(endless(sent))
      const service = yield* profileClient(relay.url, { maxBodyBytes: 4 * 1024 * 1024, timeout: "20 seconds" })
      const before = process.memoryUsage().rss
      const error = yield* Effect.flip(service.probe())
      const growth = process.memoryUsage().rss - before
      assert.strictEqual(error._tag, "RelayProfileContractError")
      assert.strictEqual(error.reason, "malformed")
      assert.include(error.detail, "larger than 4194304 bytes")
      assert.isBelow(growth, 200 * 1024 * 1024, `RSS grew by ${growth} bytes`)
      yield* Effect.log(`profile limit: ${sent.bytes} bytes sent, RSS +${Math.round(growth / 1048576)} MiB`)
      assert.isBelow(sent.bytes, 1024 * 1024 * 1024, "the server was stopped long before 1 GiB")
    }), 60_000)

  it.scopedLive("a body within the limit is read and classified as before", () =>
    Effect.gen(function*() {
      const relay = yield* start((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(envelope({ t: { type: "object" } })))
      })
      const service = yield* profileClient(relay.url, { maxBodyBytes: 1024 })
      const probe = yield* service.probe()
      assert.strictEqual(probe._tag, "Exported")
    }), 20_000)
})
