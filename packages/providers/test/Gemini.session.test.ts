/**
 * The Gemini provider under a real `AgentSession`, over loopback: random sessions whose rounds (valid,
 * near-miss and invalid calls of the session property test's tools, text, usage) are served as Gemini
 * SSE streams. After every send: the answer, the executors got exactly the canonical arguments of the
 * rounds that ran (none of a round with an invalid call), the next request answered each call with a
 * `functionResponse` carrying its envelope under the call's id, and usage adds up. Plus Claude through
 * Cloud Code Assist: the CCA fallback reaches the turn's warnings.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Redacted } from "effect"
import { JsonValue as J } from "@toolgate/json-schema"
import { AgentSession, ArgumentValidator, Tool, Toolkit } from "@toolgate/runtime"
import { invalidArgs, nearMissArgs, validArgs } from "@toolgate/test-support/sessionArbitraries"
import { resultOf, recorded, type ToolName, toolNames } from "@toolgate/test-support/sessionTools"
import { data, provider, type Reply, sent, start } from "./Gemini.support.js"

interface Call {
  readonly tool: ToolName
  readonly raw: J.JsonObject
  /** The value validation yields; absent for invalid arguments. */
  readonly canonical?: J.JsonValue
}
interface CallsRound { readonly text: string; readonly calls: ReadonlyArray<Call>; readonly usage: readonly [number, number] }
interface Turn { readonly rounds: ReadonlyArray<CallsRound>; readonly answer: ReadonlyArray<string> }

const tool = fc.constantFrom(...toolNames)
const objectArgs = (arb: fc.Arbitrary<{ readonly raw: J.JsonValue | undefined; readonly canonical?: J.JsonValue }>) =>
  arb.filter((a) => J.isObject(a.raw))
const valid: fc.Arbitrary<Call> = tool.chain((t) =>
  objectArgs(fc.oneof(validArgs[t], nearMissArgs[t])).map((a) => ({ tool: t, raw: a.raw as J.JsonObject, canonical: a.canonical! }))
)
const invalid: fc.Arbitrary<Call> = tool.chain((t) => fc.constantFrom(...invalidArgs[t].filter(J.isObject)).map((raw) => ({ tool: t, raw })))
const usage = fc.tuple(fc.nat(500), fc.nat(200))
const text = fc.constantFrom("", "Checking.", "Un moment — je regarde.")
const round = (calls: fc.Arbitrary<ReadonlyArray<Call>>): fc.Arbitrary<CallsRound> => fc.record({ text, calls, usage })
/** A turn: rounds of valid calls, at most one of them with an invalid call (one repair), then an answer. */
const turn: fc.Arbitrary<Turn> = fc.record({
  rounds: fc.tuple(
    fc.array(round(fc.array(valid, { minLength: 1, maxLength: 3 })), { maxLength: 2 }),
    fc.option(round(fc.tuple(fc.array(valid, { maxLength: 2 }), invalid).map(([vs, bad]) => [...vs, bad])), { nil: undefined })
  ).map(([rounds, repair]) => repair === undefined ? rounds : [repair, ...rounds]),
  answer: fc.array(fc.constantFrom("Done", ", ", "all set", " ✓"), { minLength: 1, maxLength: 3 })
})

/** One round trip as Gemini streams it: text, then the calls (no ids: the provider names them), then the finish and usage. */
const stream = (responseId: string, round: CallsRound | { readonly answer: ReadonlyArray<string> }): string => {
  const chunk = (parts: ReadonlyArray<unknown>, last: boolean, tokens?: readonly [number, number]) =>
    data({
      candidates: [{ content: { parts, role: "model" }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
      ...(tokens === undefined ? {} : { usageMetadata: { promptTokenCount: tokens[0], candidatesTokenCount: tokens[1], totalTokenCount: tokens[0] + tokens[1] } }),
      modelVersion: "gemini-2.5-flash",
      responseId
    })
  if ("answer" in round) return round.answer.map((piece, i) => chunk([{ text: piece }], i === round.answer.length - 1, [7, 3])).join("")
  return (round.text === "" ? "" : chunk([{ text: round.text }], false)) +
    chunk(round.calls.map((c) => ({ functionCall: { name: c.tool, args: c.raw } })), true, round.usage)
}

/** Serves the session's requests in order: the n-th request gets the n-th round of the plan. */
const serve = (plan: ReadonlyArray<Turn>, wrapped = false): Reply => {
  const rounds = plan.flatMap((t) => [...t.rounds, { answer: t.answer }])
  let n = 0
  return (_req, res) => {
    const i = n++
    res.writeHead(200, { "content-type": "text/event-stream" })
    const body = i < rounds.length ? stream(`r${i}`, rounds[i]!) : ""
    // Cloud Code Assist sends each response as `{ response }`
    res.end(wrapped ? body.replace(/^data: (.*)$/gm, "data: {\"response\":$1}") : body)
  }
}

const runPlan = (plan: ReadonlyArray<Turn>) =>
  Effect.gen(function*() {
    const server = yield* start(serve(plan))
    const tools = recorded()
    const session = yield* AgentSession.make({ provider: yield* provider(server), toolkit: tools.toolkit, mode: "local" }).pipe(
      Effect.provide(ArgumentValidator.layer)
    )
    let request = 0
    for (const [t, planned] of plan.entries()) {
      const received = tools.received.length
      const result = yield* session.send(`send ${t + 1}`).pipe(Effect.timeout("20 seconds"))
      assert.strictEqual(result.text, planned.answer.join(""), `send ${t + 1}`)
      assert.deepStrictEqual([result.usage.inputTokens, result.usage.outputTokens], [
        planned.rounds.reduce((s, r) => s + r.usage[0], 7),
        planned.rounds.reduce((s, r) => s + r.usage[1], 3)
      ])
      const expectedRuns = planned.rounds.flatMap((r, k) =>
        r.calls.some((c) => c.canonical === undefined) ? [] : r.calls.map((c, i) => ({ callId: `r${request + k}_${i}`, tool: c.tool, args: c.canonical }))
      )
      const runs = tools.received.slice(received).map((r) => ({ callId: r.callId, tool: r.tool, args: r.args }))
      const byId = (a: { callId: string }, b: { callId: string }) => a.callId < b.callId ? -1 : 1
      assert.deepStrictEqual([...runs].sort(byId), [...expectedRuns].sort(byId), `send ${t + 1}: executors`)
      for (const [k, r] of planned.rounds.entries()) {
        // the request after round k: the model's calls as sent, then one functionResponse per call carrying its envelope
        const contents = sent(server, request + k + 1).contents
        const [asked, answered] = contents.slice(-2)
        const ids = r.calls.map((_, i) => `r${request + k}_${i}`)
        assert.deepStrictEqual(asked.parts.filter((p: any) => p.functionCall).map((p: any) => p.functionCall), r.calls.map((c, i) => ({ id: ids[i], name: c.tool, args: c.raw })))
        assert.strictEqual(answered.role, "user")
        const responses = answered.parts.map((p: any) => p.functionResponse)
        assert.deepStrictEqual(responses.map((f: any) => [f.id, f.name]), r.calls.map((c, i) => [ids[i], c.tool]))
        const repaired = r.calls.some((c) => c.canonical === undefined)
        for (const [i, c] of r.calls.entries()) {
          const envelope = responses[i].response
          if (c.canonical === undefined) assert.strictEqual(envelope.kind, "invalid_args", `send ${t + 1} round ${k} call ${i}`)
          else if (repaired) assert.isFalse(envelope.ok)
          else {
            const result = resultOf(c.tool, c.canonical)
            assert.deepStrictEqual(result === undefined ? [envelope.ok, envelope.kind] : [envelope.ok, envelope.result], result === undefined ? [false, "not_found"] : [true, result])
          }
        }
      }
      const declarations = sent(server, request).tools[0].functionDeclarations
      assert.deepStrictEqual(declarations.map((d: any) => [d.name, typeof d.parametersJsonSchema]), toolNames.map((n) => [n, "object"]))
      request += planned.rounds.length + 1
    }
    assert.strictEqual(server.requests.length, request)
    for (const r of tools.received) assert.deepStrictEqual(r.problems, [], `${r.tool} ${r.callId}`)
  }).pipe(Effect.scoped)

describe("AgentSession over Gemini", () => {
  it.live.prop("every send runs the calls Gemini made, answers each by id with its envelope, and adds up usage", [fc.array(turn, { minLength: 1, maxLength: 3 })], ([plan]) => runPlan(plan), {
    timeout: 120_000,
    fastCheck: { numRuns: 25 }
  })

  it.scopedLive("a 429 after a round's tools ran fails the send retryably, takes the tools back, and the next send works", () =>
    Effect.gen(function*() {
      const replies = [
        stream("q0", { text: "", calls: [{ tool: "set_volume", raw: { level: "3" }, canonical: { level: 3 } }], usage: [5, 1] }),
        undefined,
        stream("q2", { answer: ["Back again."] })
      ]
      let n = 0
      const server = yield* start((_req, res) => {
        const body = replies[n++]
        if (body === undefined) {
          res.writeHead(429, { "content-type": "application/json" })
          return void res.end(JSON.stringify({ error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" } }))
        }
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(body)
      })
      const tools = recorded()
      const session = yield* AgentSession.make({ provider: yield* provider(server), toolkit: tools.toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const failed = yield* Effect.flip(session.send("volume 3").pipe(Effect.timeout("20 seconds")))
      assert.strictEqual(failed._tag, "ProviderError")
      if (failed._tag !== "ProviderError") return
      assert.strictEqual(failed.retryable, true)
      assert.include(failed.message, "RESOURCE_EXHAUSTED")
      assert.deepStrictEqual([tools.received.map((r) => [r.callId, r.args]), [...failed.compensation?.compensated ?? []], tools.undone], [[["q0_0", { level: 3 }]], ["q0_0"], ["q0_0"]])
      assert.deepStrictEqual(yield* session.history, [{ _tag: "User", text: "volume 3" }])
      const again = yield* session.send("hello").pipe(Effect.timeout("20 seconds"))
      assert.strictEqual(again.text, "Back again.")
    }))

  it.scopedLive("Claude through Cloud Code Assist: a tool CCA cannot take is a warning of the turn and goes out without parameters", () =>
    Effect.gen(function*() {
      const server = yield* start(serve([{ rounds: [], answer: ["Hello."] }, { rounds: [], answer: ["Again."] }], true))
      // a schema the local validator takes, whose normalised form fails the 2020-12 meta-schema (a numeric description)
      const odd = Tool.make("odd", { description: "A schema CCA's meta-schema check refuses.", parameters: { type: "object", properties: { x: { type: "string", description: 5 } } } as never, execute: () => Effect.succeed("x") })
      const fine = Tool.make("fine", { description: "A plain one.", parameters: { type: "object", properties: { n: { type: ["integer", "null"] } }, required: ["n"] }, execute: () => Effect.succeed("y") })
      const claude = yield* provider(server, { endpoint: "cloudCodeAssist", model: "claude-sonnet-4-5", accessToken: Redacted.make("ya29.t") })
      const session = yield* AgentSession.make({ provider: claude, toolkit: yield* Toolkit.make(odd, fine), mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* session.send("hi").pipe(Effect.timeout("20 seconds"))
      assert.strictEqual(turn.text, "Hello.")
      assert.deepStrictEqual(turn.warnings.map((w) => w.tool), ["odd"])
      assert.deepStrictEqual(sent(server).request.tools[0].functionDeclarations, [
        { name: "odd", description: "A schema CCA's meta-schema check refuses.", parameters: { type: "object", properties: {} } },
        { name: "fine", description: "A plain one.", parameters: { type: "object", properties: { n: { type: "integer" } } } }
      ])
    }))
})
