/**
 * The session property test (Session.property.test.ts) with Gemini as the provider: the same random plans
 * (made to fit Gemini's wire, support/geminiScripted.ts), the same model of a turn and the same oracle after
 * every send, but each round reaches the session as a Gemini SSE body over loopback, read by the real
 * `Gemini` provider (test-support's `runSession` with this model: undos between sends, the effect ledger and
 * the compensation checked as for `Scripted`).
 */
import { describe, it } from "@effect/vitest"
import { session as sessionPlan } from "@toolgate/test-support/sessionArbitraries"
import { runSession } from "@toolgate/test-support/sessionRun"
import * as GeminiScripted from "./support/geminiScripted.js"

describe("AgentSession over Gemini's wire, driven by the session property's plans", () => {
  it.live.prop(
    "every send keeps the invariants and does what the model of a turn predicts",
    [sessionPlan.map(GeminiScripted.representable)],
    ([plan]) => runSession(plan, { mode: "local" }, GeminiScripted.make),
    { timeout: 180_000, fastCheck: { numRuns: 40 } }
  )
})
