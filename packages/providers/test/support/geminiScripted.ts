/**
 * The session property test's scripted model, spoken over Gemini's wire: each round the session asks
 * for is chosen from the `Script` exactly as `Scripted` chooses it, written as a recorded-style Gemini
 * SSE body (or an HTTP error for a scripted failure) and served by a loopback server to a real `Gemini`
 * provider. So the session sees the script only through Gemini's wire and the provider's reader.
 *
 * Gemini's wire cannot say everything a script can (a call's arguments are always an object; no argument
 * deltas; nothing follows the finish; no provider-driven events), so `representable` makes a plan fit it:
 * calls whose arguments are not an object (or absent) are replaced by a plain valid call, refs go as
 * objects, partials and the violations the wire cannot carry are left out.
 */
import { Effect, Stream } from "effect"
import type { Scope } from "effect"
import { JsonValue as J } from "@toolgate/json-schema"
import type { Provider, StreamEvent } from "@toolgate/runtime"
import * as Script from "../../src/Script.js"
import { data, provider as geminiProvider, start } from "../Gemini.support.js"
import type { CallPlan, RoundPlan, SessionPlan } from "@toolgate/test-support/sessionArbitraries"

const plainCall: CallPlan = { _tag: "Valid", tool: "set_volume", args: { raw: { level: 1 }, canonical: { level: 1 } }, nearMiss: false }

/** Whether Gemini's `args` can carry a call's arguments: an object, or none at all. */
const carried = (c: CallPlan): boolean =>
  c._tag === "Ref" || (c.args.raw === undefined || J.isObject(c.args.raw))

const fit = (round: RoundPlan): RoundPlan => {
  switch (round._tag) {
    case "Fail":
      return round
    case "Answer":
      return { ...round, violation: round.violation === "missingDone" ? round.violation : undefined }
    case "Calls": {
      const calls = round.calls.map((c) => carried(c) ? (c._tag === "Ref" ? { ...c, asText: false } : c) : plainCall)
      const violation = round.violation === "missingDone" || round.violation === "duplicateCallId" ? round.violation : undefined
      return { ...round, calls, partials: false, violation }
    }
  }
}

/** The plan with every round made to fit Gemini's wire. */
export const representable = (plan: SessionPlan): SessionPlan => ({ ...plan, turns: plan.turns.map((rounds) => rounds.map(fit)) })

/** A round as Gemini streams it: a chunk per text and per call, then the finish with the usage (unless the round has no `Done`). */
const encode = (responseId: string, events: ReadonlyArray<StreamEvent.StreamEvent>): string => {
  const chunk = (parts: ReadonlyArray<unknown>, finish?: ReadonlyArray<StreamEvent.StreamEvent>) => {
    const usage = finish?.find((e): e is StreamEvent.Usage => e._tag === "Usage")
    return data({
      candidates: [{ content: { parts, role: "model" }, index: 0, ...(finish === undefined ? {} : { finishReason: "STOP" }) }],
      ...(usage === undefined ? {} : { usageMetadata: { promptTokenCount: usage.inputTokens, candidatesTokenCount: usage.outputTokens } }),
      modelVersion: "gemini-2.5-flash",
      responseId
    })
  }
  let body = ""
  for (const e of events) {
    if (e._tag === "TextDelta") body += chunk([{ text: e.text }])
    else if (e._tag === "ToolCallComplete") {
      body += chunk([{ functionCall: { id: e.id, name: e.name, ...(e.arguments === undefined ? {} : { args: e.arguments }) } }])
    }
  }
  return events.some((e) => e._tag === "Done") ? body + chunk([], events) : body
}

/** A scripted model behind a loopback Gemini server: the provider and the requests it was given (as `Scripted.requests`). */
export const make = (
  script: Script.Script,
  capabilities: Provider.CapabilityOverrides
): Effect.Effect<{ readonly provider: Provider.AgentProvider; readonly requests: Effect.Effect<ReadonlyArray<Provider.CompletionRequest>> }, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Sends are serialised, so the round chosen for the latest `stream` is the one the next request gets.
    let next: { readonly status: number; readonly body: string } = { status: 500, body: "{}" }
    let served = 0
    const server = yield* start((_req, res) => {
      res.writeHead(next.status, { "content-type": next.status === 200 ? "text/event-stream" : "application/json" })
      res.end(next.body)
    })
    const gemini = yield* geminiProvider(server, { timeout: "10 seconds", capabilities })
    const received: Array<Provider.CompletionRequest> = []
    const stream = (request: Provider.CompletionRequest) =>
      Stream.suspend(() => {
        received.push(request)
        const round = Script.select(script, request.messages)
        const id = `resp${served++}`
        next = round === undefined ?
          { status: 400, body: JSON.stringify({ error: { code: 400, message: "the script has no such round", status: "INVALID_ARGUMENT" } }) } :
          Script.isFailure(round) ?
          { status: round.fail.retryable ? 503 : 400, body: JSON.stringify({ error: { code: round.fail.retryable ? 503 : 400, message: round.fail.reason } }) } :
          { status: 200, body: encode(id, round) }
        return gemini.stream(request)
      })
    return { provider: { ...gemini, stream }, requests: Effect.sync(() => received.slice()) }
  })
