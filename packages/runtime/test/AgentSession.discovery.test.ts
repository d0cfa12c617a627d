import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import { AgentSession, ArgumentValidator, Errors, Provider, type StreamEvent, Tool, Toolkit } from "../src/index.js"
import { answer, call, done, make, type Scripted } from "./support/scriptedProvider.js"

/** A toolkit of `sizes[i]` tools in domain `d<i>` (tools `d<i>_t<j>`), and the log of what ran after which request. */
const domains = (sizes: ReadonlyArray<number>, requests: () => number) => {
  const ran: Array<readonly [string, number]> = []
  const tools = Object.fromEntries(sizes.map((size, d) => [
    `d${d}`,
    Array.from({ length: size }, (_, t) =>
      Tool.make(`d${d}_t${t}`, {
        description: `Tool ${t} of domain ${d}.`,
        parameters: { type: "object" },
        execute: () => Effect.sync(() => (ran.push([`d${d}_t${t}`, requests()]), "ran"))
      }))
  ]))
  return { ran, toolkit: Either.getOrThrow(Toolkit.domains(tools)) }
}

const names = (request: { readonly tools: ReadonlyArray<{ readonly name: string }> }) => request.tools.map((t) => t.name)
const activate = (id: string, domain: string): StreamEvent.StreamEvent => call(id, "toolgate_activate_domain", { domain })

const sessionOver = (provider: Scripted, toolkit: Toolkit.Toolkit<never>, maxProviderRoundTrips = 10) =>
  AgentSession.make({ provider, toolkit, mode: "local", limits: { maxProviderRoundTrips } }).pipe(Effect.provide(ArgumentValidator.layer))

describe("tool discovery", () => {
  it.effect("dynamicPerRequest: requests start with the discovery tools; an activated domain's tools ride every later request of the session", () =>
    Effect.gen(function*() {
      let provider: Scripted | undefined
      const { ran, toolkit } = domains([2, 1], () => provider!.requests.length)
      provider = make([
        [call("l", "toolgate_list_domains", {}), done],
        [activate("a", "d1"), done],
        [call("c", "d1_t0", {}), done],
        answer("done"),
        answer("later")
      ], { toolDiscovery: Provider.dynamicPerRequest })
      const s = yield* sessionOver(provider, toolkit)
      const turn = yield* s.send("go")
      assert.deepStrictEqual(turn.calls[0]!.envelope, {
        ok: true,
        tool: "toolgate_list_domains",
        result: { domains: [{ domain: "d0", tools: ["d0_t0", "d0_t1"], active: false }, { domain: "d1", tools: ["d1_t0"], active: false }] }
      })
      assert.deepStrictEqual(turn.calls[1]!.envelope, { ok: true, tool: "toolgate_activate_domain", result: { activated: "d1", tools: ["d1_t0"], deactivated: [] } })
      assert.deepStrictEqual(ran, [["d1_t0", 3]])
      yield* s.send("again")
      assert.deepStrictEqual(provider.requests.map(names), [
        ["toolgate_list_domains", "toolgate_activate_domain"],
        ["toolgate_list_domains", "toolgate_activate_domain"],
        ["toolgate_list_domains", "toolgate_activate_domain", "d1_t0"],
        ["toolgate_list_domains", "toolgate_activate_domain", "d1_t0"],
        ["toolgate_list_domains", "toolgate_activate_domain", "d1_t0"]
      ])
    }))

  it.effect("activation is capped at maxTools: the least recently used domain makes room; a call to its tools is not run", () =>
    Effect.gen(function*() {
      let provider: Scripted | undefined
      const { ran, toolkit } = domains([2, 2, 3], () => provider!.requests.length)
      provider = make([
        [activate("a", "d0"), done],
        [activate("b", "d1"), done],
        [call("c", "d0_t0", {}), call("d", "d1_t1", {}), done],
        [activate("e", "d2"), activate("f", "nope"), done],
        answer("done")
      ], { toolDiscovery: Provider.dynamicPerRequest, maxTools: 4 })
      const s = yield* sessionOver(provider, toolkit)
      const turn = yield* s.send("go")
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok ? c.envelope.result : c.envelope.kind), [
        { activated: "d0", tools: ["d0_t0", "d0_t1"], deactivated: [] },
        { activated: "d1", tools: ["d1_t0", "d1_t1"], deactivated: ["d0"] },
        "tool_not_found",
        "ran",
        "rejected",
        "not_found"
      ])
      assert.deepStrictEqual(ran, [["d1_t1", 3]])
      assert.include(turn.calls[2]!.envelope.ok ? "" : turn.calls[2]!.envelope.message, "activate its domain `d0`")
      assert.include(turn.calls[4]!.envelope.ok ? "" : turn.calls[4]!.envelope.message, "has 3 tools")
      assert.isTrue(provider.requests.every((r) => r.tools.length <= 4))
    }))

  it.effect("sessionRebuild: the domains that fit are active from the start; activations re-prime the list at most maxRebuilds times", () =>
    Effect.gen(function*() {
      const { toolkit } = domains([1, 1, 1, 1], () => 0)
      const provider = make([
        [activate("a", "d2"), done],
        [activate("b", "d3"), done],
        answer("done")
      ], { toolDiscovery: Provider.sessionRebuild(1), maxTools: 4 })
      const s = yield* sessionOver(provider, toolkit)
      const turn = yield* s.send("go")
      assert.deepStrictEqual(provider.requests.map(names), [
        ["toolgate_list_domains", "toolgate_activate_domain", "d0_t0", "d1_t0"],
        ["toolgate_list_domains", "toolgate_activate_domain", "d1_t0", "d2_t0"],
        ["toolgate_list_domains", "toolgate_activate_domain", "d1_t0", "d2_t0"]
      ])
      assert.include(turn.calls[1]!.envelope.ok ? "" : turn.calls[1]!.envelope.message, "rebuilt its tool list 1 times")
    }))

  it.effect("eager discovery with a toolkit one tool past maxTools talks all the same (128 of 129 tools sent)", () =>
    Effect.gen(function*() {
      const { toolkit } = domains([129], () => 0)
      const provider = make([answer("fine")], { maxTools: 128 })
      const turn = yield* (yield* sessionOver(provider, toolkit)).send("go")
      assert.strictEqual(turn.text, "fine")
      assert.strictEqual(provider.requests[0]!.tools.length, 128)
      assert.deepStrictEqual(turn.requestWarnings, ["scripted takes at most 128 tools: 1 of the toolkit's tools were left out of the requests"])
    }))

  it.effect("a toolkit tool named like a discovery tool is an InvalidOptions", () =>
    Effect.gen(function*() {
      const clash = Tool.make("toolgate_list_domains", { description: "", parameters: { type: "object" }, execute: () => Effect.succeed(1) })
      const e = yield* Effect.flip(sessionOver(make([], { toolDiscovery: Provider.dynamicPerRequest }), Either.getOrThrow(Toolkit.make(clash))))
      assert.strictEqual(e._tag, "InvalidOptions")
    }))

  it.effect("dynamic discovery under the openai-strict dialect: both discovery tools go out strict, so a strict-only provider takes them", () =>
    Effect.gen(function*() {
      const closed = { type: "object", properties: {}, additionalProperties: false } as const
      const toolkit = Either.getOrThrow(Toolkit.domains({
        d0: [Tool.make("d0_t0", { description: "A tool.", parameters: closed, execute: () => Effect.succeed("ran") })]
      }))
      const strictOnly: Provider.AgentProvider["validateTools"] = (tools) => {
        const loose = tools.find((t) => !t.strict)
        return loose === undefined ? Effect.succeed([]) : Effect.fail(new Errors.ToolsRejected({ provider: "strict", tool: loose.name, reason: "not strict" }))
      }
      const provider = make([
        [call("l", "toolgate_list_domains", {}), activate("a", "d0"), done],
        [call("c", "d0_t0", {}), done],
        answer("done")
      ], { toolDiscovery: Provider.dynamicPerRequest, schemaDialect: "openai-strict" }, strictOnly)
      const turn = yield* (yield* sessionOver(provider, toolkit)).send("go")
      assert.strictEqual(turn.text, "done")
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok), [true, true, true])
      const meta = provider.validated[0]!.filter((t) => t.name.startsWith("toolgate_"))
      assert.deepStrictEqual(meta.map((t) => [t.name, t.strict]), [["toolgate_list_domains", true], ["toolgate_activate_domain", true]])
    }))

  it.effect("discovery under a maxTools that leaves no room for both discovery tools and the smallest domain is an InvalidOptions", () =>
    Effect.gen(function*() {
      const { toolkit } = domains([2, 1], () => 0)
      for (const discovery of [Provider.dynamicPerRequest, Provider.sessionRebuild(1)]) {
        for (const maxTools of [0, 1, 2]) {
          const e = yield* Effect.flip(sessionOver(make([], { toolDiscovery: discovery, maxTools }), toolkit))
          assert.strictEqual(e._tag, "InvalidOptions")
          assert.include(e.message, "no domain could ever be activated")
        }
        const provider = make([[activate("a", "d1"), done], [call("c", "d1_t0", {}), done], answer("ok")], { toolDiscovery: discovery, maxTools: 3 })
        const turn = yield* (yield* sessionOver(provider, toolkit)).send("go")
        assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok), [true, true])
      }
    }))

  it.effect("an agent scope: a registry-aware provider's registry holds only the scoped domains' tools", () =>
    Effect.gen(function*() {
      const { toolkit } = domains([2, 1, 1], () => 0)
      let seen: ReadonlyArray<string> = []
      let other: unknown = "unset"
      const provider = Provider.registryAware((registry) => {
        seen = registry.tools.map((t) => t.name)
        other = registry.get("d1_t0")
        return make([answer("hi")], { executionModel: "providerDriven" })
      })
      const s = yield* AgentSession.make({ provider, toolkit, mode: "local", scope: ["d0", "d2"] }).pipe(Effect.provide(ArgumentValidator.layer))
      assert.deepStrictEqual(seen, ["d0_t0", "d0_t1", "d2_t0"])
      assert.isUndefined(other)
      assert.strictEqual((yield* s.send("hi")).text, "hi")
    }))

  it.effect("an agent scope: discovery lists and activates only the scoped domains; a tool outside the scope is not found", () =>
    Effect.gen(function*() {
      let provider: Scripted | undefined
      const { ran, toolkit } = domains([1, 1], () => provider!.requests.length)
      provider = make([
        [call("l", "toolgate_list_domains", {}), activate("a", "d0"), call("x", "d0_t0", {}), done],
        [call("c", "d1_t0", {}), done],
        answer("done")
      ], { toolDiscovery: Provider.dynamicPerRequest })
      const s = yield* AgentSession.make({ provider, toolkit, mode: "local", scope: ["d1"] }).pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* s.send("go")
      assert.deepStrictEqual(turn.calls[0]!.envelope, {
        ok: true,
        tool: "toolgate_list_domains",
        result: { domains: [{ domain: "d1", tools: ["d1_t0"], active: false }] }
      })
      assert.deepStrictEqual(turn.calls.slice(1).map((c) => c.envelope.ok ? "ok" : c.envelope.kind), ["not_found", "tool_not_found", "tool_not_found"])
      assert.deepStrictEqual(ran, [])
    }))

  it.effect("an agent scope is decoded: an unknown domain, an empty scope or a non-list is an InvalidOptions", () =>
    Effect.gen(function*() {
      const { toolkit } = domains([1], () => 0)
      for (const scope of [["nope"], ["d0", "d9"], [], "d0", [1]]) {
        const e = yield* Effect.flip(AgentSession.make({ provider: make([]), toolkit, mode: "local", scope: scope as never }).pipe(Effect.provide(ArgumentValidator.layer)))
        assert.strictEqual(e._tag, "InvalidOptions")
      }
      const e = yield* Effect.flip(AgentSession.make({ provider: make([]), toolkit, mode: "local", scope: ["d9"] }).pipe(Effect.provide(ArgumentValidator.layer)))
      assert.include(e.message, "`d9`")
    }))

  const step = (domainCount: number, toolCount: number) =>
    fc.oneof(
      fc.integer({ min: 0, max: domainCount }).map((d) => ({ activate: `d${d}` })),
      fc.integer({ min: 0, max: Math.max(0, toolCount - 1) }).map((t) => ({ tool: t }))
    )

  it.effect.prop(
    "for random toolkits and activation sequences, no request carries more than maxTools tools and every executed call was active when it was called",
    [
      fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }).chain((sizes) => {
        const total = sizes.reduce((a, b) => a + b, 0)
        return fc.record({
          sizes: fc.constant(sizes),
          maxTools: fc.integer({ min: 0, max: total + 2 }),
          discovery: fc.constantFrom(Provider.eagerSessionTools, Provider.dynamicPerRequest, Provider.sessionRebuild(2)),
          rounds: fc.array(fc.array(step(sizes.length, total), { minLength: 1, maxLength: 3 }), { maxLength: 6 })
        })
      })
    ],
    ([{ discovery, maxTools, rounds, sizes }]) =>
      Effect.gen(function*() {
        let provider: Scripted | undefined
        const { ran, toolkit } = domains(sizes, () => provider!.requests.length)
        const all = [...toolkit.tools.keys()]
        provider = make([
          ...rounds.map((calls, r) =>
            [
              ...calls.map((c, i) => "activate" in c ? activate(`a${r}_${i}`, c.activate) : call(`c${r}_${i}`, all[c.tool]!, {})),
              done
            ]
          ),
          answer("end")
        ], { toolDiscovery: discovery, maxTools })
        const made = yield* Effect.either(sessionOver(provider, toolkit, rounds.length + 1))
        // discovery refuses a maxTools with no room for both discovery tools and the smallest domain
        const refused = discovery._tag !== "EagerSessionTools" && maxTools < 2 + Math.min(...sizes)
        assert.strictEqual(Either.isLeft(made), refused)
        if (Either.isLeft(made)) return
        yield* made.right.send("go")
        for (const request of provider.requests) assert.isAtMost(request.tools.length, maxTools)
        for (const [tool, request] of ran) assert.include(names(provider.requests[request - 1]!), tool)
      }),
    { timeout: 60_000, fastCheck: { numRuns: 60 } }
  )
})
