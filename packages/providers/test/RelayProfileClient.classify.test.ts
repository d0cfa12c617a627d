import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as RelayProfileClient from "../src/RelayProfileClient.js"
import type { Errors, RelayProfile } from "@toolgate/runtime"
import { answer, envelope, profileClient, refusedUrl, start } from "./support/relayDouble.js"
import type { Handler } from "./support/relayDouble.js"

const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }

/** One probe against a relay answering with `handler`; the outcome and how many requests it made. */
const probeWith = (handler: Handler, options: Omit<RelayProfileClient.Options, "baseUrl"> = {}) =>
  Effect.gen(function*() {
    const relay = yield* start(handler)
    const service = yield* profileClient(relay.url, options)
    const outcome = yield* Effect.either(service.probe())
    return { outcome, requests: relay.requests(), paths: relay.paths }
  })

const exported = (outcome: Either.Either<RelayProfile.Probe, Errors.RelayProfileContractError>) => {
  assert.isTrue(Either.isRight(outcome) && outcome.right._tag === "Exported", JSON.stringify(outcome))
  return (outcome as Either.Right<never, Extract<RelayProfile.Probe, { _tag: "Exported" }>>).right
}

const contractError = (outcome: Either.Either<RelayProfile.Probe, Errors.RelayProfileContractError>) => {
  assert.isTrue(Either.isLeft(outcome), JSON.stringify(outcome))
  const error = (outcome as Either.Left<Errors.RelayProfileContractError, never>).left
  assert.strictEqual(error._tag, "RelayProfileContractError")
  return error
}

const unreachable = (outcome: Either.Either<RelayProfile.Probe, Errors.RelayProfileContractError>): string => {
  assert.isTrue(Either.isRight(outcome) && outcome.right._tag === "Unreachable", JSON.stringify(outcome))
  return (outcome as Either.Right<never, Extract<RelayProfile.Probe, { _tag: "Unreachable" }>>).right.cause
}

describe("RelayProfileClient: classification over loopback HTTP", () => {
  it.scopedLive("Exported: the version and every tool schema, from GET /v1/agent/capabilities", () =>
    Effect.gen(function*() {
      const { outcome, paths, requests } = yield* probeWith(answer(envelope({ get_weather: weather, noop: true })))
      const probe = exported(outcome)
      assert.strictEqual(probe.version, "1.0")
      assert.deepStrictEqual([...probe.toolSchemas.keys()], ["get_weather", "noop"])
      assert.deepStrictEqual(probe.toolSchemas.get("get_weather"), weather)
      assert.strictEqual(probe.toolSchemas.get("noop"), true)
      assert.deepStrictEqual(paths, ["/v1/agent/capabilities"])
      assert.strictEqual(requests, 1)
    }))

  it.scopedLive("a newer minor (1.7) is fine and other keys are ignored", () =>
    Effect.gen(function*() {
      const body = { ...envelope({ a: {} }, "1.7"), documents: { pdf: true }, tool_schemas_v2: 3 }
      const probe = exported((yield* probeWith(answer(body))).outcome)
      assert.strictEqual(probe.version, "1.7")
      assert.deepStrictEqual([...probe.toolSchemas.keys()], ["a"])
    }))

  it.scopedLive("a base URL with a trailing slash or a path prefix", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer(envelope({})))
      yield* (yield* profileClient(`${relay.url}/`)).probe()
      yield* (yield* profileClient(`${relay.url}/relay/`)).probe()
      assert.deepStrictEqual(relay.paths, ["/v1/agent/capabilities", "/relay/v1/agent/capabilities"])
    }))

  it.scopedLive("Predates: neither key (extra keys or not)", () =>
    Effect.gen(function*() {
      for (const body of [{}, { documents: true }]) {
        const { outcome } = yield* probeWith(answer(body))
        assert.isTrue(Either.isRight(outcome) && outcome.right._tag === "Predates", JSON.stringify(outcome))
      }
    }))

  it.scopedLive("Unreachable: 404, 500, 503, 408 and 429", () =>
    Effect.gen(function*() {
      for (const status of [404, 500, 503, 408, 429]) {
        const { outcome } = yield* probeWith(answer({ error: "nope" }, status))
        assert.strictEqual(unreachable(outcome), `HTTP ${status}`)
      }
    }))

  it.scopedLive("Unreachable: a relay that never answers times out", () =>
    Effect.gen(function*() {
      const { outcome } = yield* probeWith(() => {}, { timeout: "150 millis" })
      assert.include(unreachable(outcome), "no answer within")
    }))

  it.scopedLive("Unreachable: a relay that sends headers and then stalls the body times out", () =>
    Effect.gen(function*() {
      const stall: Handler = (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.write("{\"capabilities_version\": \"1.0\", ")
      }
      const { outcome } = yield* probeWith(stall, { timeout: "150 millis" })
      assert.include(unreachable(outcome), "no answer within")
    }))

  it.scopedLive("Unreachable: connection refused", () =>
    Effect.gen(function*() {
      const service = yield* profileClient(yield* refusedUrl)
      const outcome = yield* Effect.either(service.probe())
      assert.strictEqual(unreachable(outcome), "transport error (ECONNREFUSED)")
    }))

  it.scopedLive("Unreachable: the connection breaks while the body is read (a network failure, not a malformed body)", () =>
    Effect.gen(function*() {
      const { outcome } = yield* probeWith((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
        res.write("{\"capabilities_version\": \"1.0\", \"tool_")
        setTimeout(() => res.destroy(), 20)
      })
      assert.strictEqual(unreachable(outcome), "the connection broke off while the body was read (HTTP 200)")
    }))

  it.scopedLive("contract error: a 2xx that is not JSON, or JSON that is not an object", () =>
    Effect.gen(function*() {
      for (const body of ["<html>oops</html>", "", "{\"capabilities_version\": ", "[]", "null", "\"1.0\"", "42"]) {
        const error = contractError((yield* probeWith(answer(body))).outcome)
        assert.strictEqual(error.reason, "malformed", body)
      }
    }))

  it.scopedLive("contract error: any other status (401, 403, 400) is a reachable, broken relay", () =>
    Effect.gen(function*() {
      for (const status of [400, 401, 403]) {
        const error = contractError((yield* probeWith(answer(envelope({}), status))).outcome)
        assert.strictEqual(error.reason, "malformed")
        assert.include(error.detail, `HTTP ${status}`)
      }
    }))

  it.scopedLive("contract error: one key without the other is incomplete", () =>
    Effect.gen(function*() {
      const onlyVersion = contractError((yield* probeWith(answer({ capabilities_version: "1.0" }))).outcome)
      assert.strictEqual(onlyVersion.reason, "incomplete")
      assert.include(onlyVersion.detail, "tool_schemas is missing")
      const onlyTools = contractError((yield* probeWith(answer({ tool_schemas: {} }))).outcome)
      assert.strictEqual(onlyTools.reason, "incomplete")
      assert.include(onlyTools.detail, "capabilities_version is missing")
    }))

  it.scopedLive("contract error: a tool_schemas that is not an object, or an entry that is not a schema", () =>
    Effect.gen(function*() {
      for (const tools of [[], "tools", null, 1, [{ type: "object" }]]) {
        const error = contractError((yield* probeWith(answer({ capabilities_version: "1.0", tool_schemas: tools }))).outcome)
        assert.strictEqual(error.reason, "malformed")
        assert.include(error.detail, "tool_schemas must be an object")
      }
      const error = contractError((yield* probeWith(answer(envelope({ ok: {}, count: 42, list: [], nil: null })))).outcome)
      assert.strictEqual(error.reason, "malformed")
      assert.include(error.detail, "\"count\", \"list\", \"nil\"")
      assert.notInclude(error.detail, "\"ok\"")
    }))

  it.scopedLive("contract error: a newer or older major is unsupported, a malformed version is malformed", () =>
    Effect.gen(function*() {
      for (const version of ["2.0", "0.9", "10.1"]) {
        const error = contractError((yield* probeWith(answer(envelope({}, version)))).outcome)
        assert.strictEqual(error.reason, "unsupported_version", version)
        assert.include(error.detail, version)
      }
      for (const version of ["abc", "1", "1.0.0", "", " 1.0", "v1.0", 1, 1.5, null, { major: 1 }]) {
        const body = { capabilities_version: version, tool_schemas: {} }
        const error = contractError((yield* probeWith(answer(body))).outcome)
        assert.strictEqual(error.reason, "malformed", JSON.stringify(version))
        assert.include(error.detail, "capabilities_version")
      }
    }))

  it.scopedLive("a newer major is reported even when its tool_schemas has a shape we do not read", () =>
    Effect.gen(function*() {
      const error = contractError((yield* probeWith(answer({ capabilities_version: "2.0", tool_schemas: [1] }))).outcome)
      assert.strictEqual(error.reason, "unsupported_version")
    }))

  it.scopedLive("__proto__ and constructor as tool names stay tools and pollute nothing", () =>
    Effect.gen(function*() {
      const raw = `{"capabilities_version":"1.0","tool_schemas":{"__proto__":{"type":"object","polluted":1},"constructor":{"type":"object"}}}`
      const probe = exported((yield* probeWith(answer(raw))).outcome)
      assert.deepStrictEqual([...probe.toolSchemas.keys()], ["__proto__", "constructor"])
      assert.deepStrictEqual(probe.toolSchemas.get("__proto__"), { type: "object", polluted: 1 })
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
      const bad = `{"capabilities_version":"1.0","tool_schemas":{"__proto__":7}}`
      assert.include(contractError((yield* probeWith(answer(bad))).outcome).detail, "\"__proto__\"")
    }))

  it.scopedLive("a 10 MB body: ignored bulk still decodes, 10 MB of garbage is malformed", () =>
    Effect.gen(function*() {
      const bulk = "x".repeat(10 * 1024 * 1024)
      const probe = exported((yield* probeWith(answer({ ...envelope({ a: weather }), documents: bulk }))).outcome)
      assert.deepStrictEqual([...probe.toolSchemas.keys()], ["a"])
      const many = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`tool_${i}`, { ...weather, description: "d".repeat(400) }]))
      const big = exported((yield* probeWith(answer(envelope(many)))).outcome)
      assert.strictEqual(big.toolSchemas.size, 20_000)
      const error = contractError((yield* probeWith(answer(`{${bulk}`))).outcome)
      assert.strictEqual(error.reason, "malformed")
    }))

  it.scopedLive("deeply nested tool schemas (10,000 levels) decode without blowing the stack", () =>
    Effect.gen(function*() {
      const deep = `${"{\"not\":".repeat(10_000)}{}${"}".repeat(10_000)}`
      const raw = `{"capabilities_version":"1.0","tool_schemas":{"deep":${deep}}}`
      const probe = exported((yield* probeWith(answer(raw))).outcome)
      assert.isTrue(probe.toolSchemas.has("deep"))
    }))

  /** What building the service with `options` fails with. */
  const invalid = (options: RelayProfileClient.Options) =>
    Effect.flip(RelayProfileClient.make(options).pipe(Effect.provide(FetchHttpClient.layer)))

  it.scoped("a base URL that is not http(s) is InvalidOptions while the service is built", () =>
    Effect.gen(function*() {
      for (const url of ["not a url", "", "ftp://relay.example", "file:///etc/passwd", "javascript:alert(1)"]) {
        const e = yield* invalid({ baseUrl: url })
        assert.deepStrictEqual([e._tag, e.of], ["InvalidOptions", "RelayProfileClient"], url)
        assert.include(e.message, "http")
      }
    }))

  it.scopedLive("a timeout that is not positive, a time to live that is not a duration, a byte limit below 1: InvalidOptions", () =>
    Effect.gen(function*() {
      const relay = yield* start(answer(envelope({})))
      const hostile: ReadonlyArray<Omit<RelayProfileClient.Options, "baseUrl">> = [
        { timeout: 0 }, { timeout: -5 }, { timeout: Number.NaN }, { timeout: "banana" as never }, { timeout: {} as never },
        { timeToLive: "soon" as never }, { timeToLive: Number.NaN }, { maxBodyBytes: 0 }, { maxBodyBytes: 1.5 }
      ]
      for (const options of hostile) {
        const e = yield* invalid({ baseUrl: relay.url, ...options })
        assert.strictEqual(e._tag, "InvalidOptions", JSON.stringify(options))
      }
      // a zero or infinite time to live is a valid choice: never kept, or kept for good
      for (const timeToLive of [0, Number.POSITIVE_INFINITY]) {
        const service = yield* profileClient(relay.url, { timeToLive })
        assert.strictEqual((yield* service.probe())._tag, "Exported")
      }
      assert.strictEqual(relay.requests(), 2)
    }))
})
