import { assert, describe, it } from "@effect/vitest"
import * as RecordingTracer from "@toolgate/test-support/recordingTracer"
import { Effect, Exit } from "effect"
import * as RelayProfile from "../src/RelayProfile.js"
import * as DriftGate from "../src/DriftGate.js"

/** A gate over a relay that exports `t` with `cloud`. */
const gateOver = (cloud: object) =>
  DriftGate.makeWith({ prove: (c, l) => JSON.stringify(c) === JSON.stringify(l) ? { _tag: "Subtype" } : { _tag: "Drift", reasons: [], witness: 1 } }).pipe(
    Effect.provideService(RelayProfile.RelayProfile, {
      probe: () => Effect.succeed(RelayProfile.Probe.Exported({ version: "1.0", toolSchemas: new Map([["t", cloud as never]]) }))
    })
  )

describe("DriftGate.check's span", () => {
  it.effect("each check runs in a DriftGate.check span with the relay's figures; a failed check sets error.type", () =>
    Effect.gen(function*() {
      const gate = yield* gateOver({ type: "object" })
      const { spans, tracer } = RecordingTracer.make()
      yield* gate.check({ tools: new Map([["t", { name: "t", jsonSchema: { type: "object" } }]]) }).pipe(Effect.withTracer(tracer))
      const checks = spans.filter((s) => s.name === "DriftGate.check")
      assert.strictEqual(checks.length, 1)
      assert.strictEqual(checks[0]!.attributes.get("toolgate.drift_gate.tools"), 1)
      assert.isFalse(checks[0]!.attributes.has("error.type"))
      const failed = yield* gate.check({ tools: new Map([["t", { name: "t", jsonSchema: { type: "string" } }]]) }).pipe(Effect.withTracer(tracer), Effect.exit)
      assert.isTrue(Exit.isFailure(failed))
      const last = spans.filter((s) => s.name === "DriftGate.check").at(-1)!
      assert.isString(last.attributes.get("error.type"))
    }))
})
