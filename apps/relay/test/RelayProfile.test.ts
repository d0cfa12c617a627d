import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { RelayProfileClient } from "@toolgate/providers"
import type { RelayProfile } from "@toolgate/runtime"
import { Effect, Either } from "effect"
import { profile, requestText, script, start } from "./fixtures.js"

const capabilitiesOf = (url: string, headers: Record<string, string> = {}) =>
  requestText(`${url}/v1/agent/capabilities`, { headers })

/** The runtime's own capabilities client against a relay: the real classification of what it serves. */
const probe = (url: string) =>
  Effect.gen(function*() {
    const service = yield* RelayProfileClient.make({ baseUrl: url, timeout: "3 seconds" })
    return yield* Effect.either(service.probe())
  }).pipe(Effect.provide(NodeHttpClient.layerUndici))

describe("GET /v1/agent/capabilities", () => {
  it.scopedLive("serves the profile as given (its extra keys too)", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const answer = yield* capabilitiesOf(url)
      assert.strictEqual(answer.status, 200)
      assert.match(answer.headers.get("content-type") ?? "", /application\/json/)
      assert.deepStrictEqual(JSON.parse(answer.text), profile)
      const probed = yield* probe(url)
      assert.isTrue(Either.isRight(probed) && probed.right._tag === "Exported")
    }))

  it.scopedLive("leaves out the profile's faults key and serves a broken profile as broken", () =>
    Effect.gen(function*() {
      const broken = { capabilities_version: "1.0", faults: [] }
      const { url } = yield* start({ profile: broken, script })
      const answer = yield* capabilitiesOf(url)
      assert.deepStrictEqual(JSON.parse(answer.text), { capabilities_version: "1.0" })
      const probed = yield* probe(url)
      assert.isTrue(Either.isLeft(probed) && probed.left.reason === "incomplete")
    }))

  it.scopedLive("serves a profile that is not an object as it is", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile: ["not", "an", "object"], script })
      const answer = yield* capabilitiesOf(url)
      assert.deepStrictEqual(JSON.parse(answer.text), ["not", "an", "object"])
    }))
})

describe("capability faults by header", () => {
  it.scopedLive("predates: neither key, the other keys kept", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const body = JSON.parse((yield* capabilitiesOf(url, { "x-toolgate-fault": "predates" })).text)
      assert.deepStrictEqual(body, { documents: { supported: false } })
    }))

  it.scopedLive("malformed: tool_schemas is not an object, the version kept", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const body = JSON.parse((yield* capabilitiesOf(url, { "x-toolgate-fault": "malformed" })).text)
      assert.strictEqual(body.capabilities_version, "1.0")
      assert.strictEqual(typeof body.tool_schemas, "string")
    }))

  it.scopedLive("newer-major: version 2.0, the schemas kept", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const body = JSON.parse((yield* capabilitiesOf(url, { "x-toolgate-fault": "newer-major" })).text)
      assert.strictEqual(body.capabilities_version, "2.0")
      assert.deepStrictEqual(body.tool_schemas, profile.tool_schemas)
      // the header switched it for that request only
      assert.deepStrictEqual(JSON.parse((yield* capabilitiesOf(url)).text), profile)
    }))

  it.scopedLive("an unknown fault or a bad delay is a 400 JSON error", () =>
    Effect.gen(function*() {
      const { url } = yield* start({ profile, script })
      const unknown = yield* capabilitiesOf(url, { "x-toolgate-fault": "slow, slwo" })
      assert.strictEqual(unknown.status, 400)
      assert.match(JSON.parse(unknown.text).error.message, /slwo/)
      const delay = yield* capabilitiesOf(url, { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "-5" })
      assert.strictEqual(delay.status, 400)
      assert.strictEqual(JSON.parse(delay.text).error.type, "invalid_request_error")
    }))
})

describe("capability faults by profile, as the runtime's client classifies them", () => {
  const cases = [
    ["predates", (p: Either.Either<RelayProfile.Probe, unknown>) => Either.isRight(p) && p.right._tag === "Predates"],
    ["malformed", (p: Either.Either<RelayProfile.Probe, { readonly reason?: string }>) => Either.isLeft(p) && p.left.reason === "malformed"],
    ["newer-major", (p: Either.Either<RelayProfile.Probe, { readonly reason?: string }>) => Either.isLeft(p) && p.left.reason === "unsupported_version"],
    ["fail", (p: Either.Either<RelayProfile.Probe, unknown>) => Either.isRight(p) && p.right._tag === "Unreachable"],
    ["garbage", (p: Either.Either<RelayProfile.Probe, { readonly reason?: string }>) => Either.isLeft(p) && p.left.reason === "malformed"]
  ] as const
  for (const [fault, expected] of cases) {
    it.scopedLive(fault, () =>
      Effect.gen(function*() {
        const { url } = yield* start({ profile: { ...profile, faults: [fault] }, script })
        const probed = yield* probe(url)
        assert.isTrue(expected(probed as never), `${fault}: ${JSON.stringify(probed)}`)
      }))
  }
})
