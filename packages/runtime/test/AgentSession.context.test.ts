import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AgentSession, ArgumentValidator, Provider, RunLimits, Tool, Toolkit } from "../src/index.js"
import { answer, call, done, make } from "./support/scriptedProvider.js"

const echo = Tool.make("echo", {
  description: "Echoes a word.",
  parameters: Schema.Struct({ word: Schema.optional(Schema.String) }),
  execute: ({ word }) => Effect.succeed(word ?? "")
})
const toolkit = Toolkit.make(echo).pipe(Effect.runSync)

const config = (entries: ReadonlyArray<readonly [string, string]>) => Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))

describe("AgentSession wiring from context", () => {
  it.effect("the provider comes from the Provider service; a provider given as an option overrides it", () =>
    Effect.gen(function*() {
      const fromContext = make([answer("from context")])
      const given = make([answer("given")])
      const s = yield* AgentSession.make({ toolkit, mode: "local" }).pipe(Effect.provideService(Provider.Provider, fromContext))
      assert.strictEqual((yield* s.send("hi")).text, "from context")
      const o = yield* AgentSession.make({ toolkit, mode: "local", provider: given }).pipe(Effect.provideService(Provider.Provider, fromContext))
      assert.strictEqual((yield* o.send("hi")).text, "given")
      assert.deepStrictEqual([fromContext.requests.length, given.requests.length], [1, 1])
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.effect("the limits come from RunLimits.layerEnv; limits given as an option override them", () =>
    Effect.gen(function*() {
      // three rounds, two calling a tool the toolkit lacks (nothing runs): two round trips allowed by config refuse the third
      const rounds = () => make([[call("a", "nope", {}), done], [call("b", "nope", {}), done], answer("end")])
      const limited = yield* AgentSession.make({ toolkit, mode: "local", provider: rounds() }).pipe(
        Effect.provide(RunLimits.layerEnv.pipe(Layer.provide(config([["TOOLGATE_MAX_PROVIDER_ROUND_TRIPS", "2"]]))))
      )
      const e = yield* Effect.flip(limited.send("go"))
      assert.strictEqual(e._tag, "RoundTripLimitExceeded")
      assert.deepStrictEqual(e._tag === "RoundTripLimitExceeded" && e.limit, 2)
      const overridden = yield* AgentSession.make({ toolkit, mode: "local", provider: rounds(), limits: { maxProviderRoundTrips: 3 } }).pipe(
        Effect.provide(RunLimits.layerWith({ maxProviderRoundTrips: 2 }))
      )
      assert.strictEqual((yield* overridden.send("go")).usage.roundTrips, 3)
      const byDefault = yield* AgentSession.make({ toolkit, mode: "local", provider: rounds() })
      assert.strictEqual((yield* byDefault.send("go")).usage.roundTrips, 3)
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.effect("strictTools: false sends no tool strict to an openai-strict provider; the default and true send them strict", () =>
    Effect.gen(function*() {
      const strictFlags = (strictTools: boolean | undefined) =>
        Effect.gen(function*() {
          const provider = make([answer("ok")], { schemaDialect: "openai-strict" })
          const s = yield* AgentSession.make({ toolkit, mode: "local", provider, ...(strictTools === undefined ? {} : { strictTools }) })
          yield* s.send("hi")
          return provider.requests[0]!.tools.map((t) => t.strict)
        })
      assert.deepStrictEqual(yield* strictFlags(undefined), [true])
      assert.deepStrictEqual(yield* strictFlags(true), [true])
      assert.deepStrictEqual(yield* strictFlags(false), [false])
      // the environment is not read: a variable that once turned strict mode off changes nothing
      const withEnv = yield* strictFlags(undefined).pipe(Effect.provide(config([["TOOLGATE_NO_STRICT", "1"]])))
      assert.deepStrictEqual(withEnv, [true])
      const invalid = yield* Effect.flip(AgentSession.make({ toolkit, mode: "local", provider: make([]), strictTools: "no" as never }))
      assert.strictEqual(invalid._tag, "InvalidOptions")
    }).pipe(Effect.provide(ArgumentValidator.layer)))

  it.effect("an executor runs with the session's services and the sender's, its logs annotated with the call beside the sender's annotations", () => {
    const logs: Array<Record<string, unknown>> = []
    const logger = Logger.make(({ annotations, message }) => void logs.push({ message: Array.isArray(message) ? message[0] : message, ...Object.fromEntries(HashMap.toEntries(annotations)) }))
    return Effect.gen(function*() {
      class Greeting extends Context.Tag("test/Greeting")<Greeting, string>() {}
      class Caller extends Context.Tag("test/Caller")<Caller, string>() {}
      const greet = Tool.make("greet", {
        description: "Greets.",
        parameters: Schema.Struct({}),
        execute: () =>
          Effect.gen(function*() {
            const greeting = yield* Greeting
            const caller = yield* Effect.serviceOption(Caller)
            yield* Effect.log("greeting")
            return `${greeting} ${Option.getOrElse(caller, () => "nobody")}`
          })
      })
      const kit = yield* Toolkit.make(greet)
      const provider = make([[call("c1", "greet", {}), done], answer("done")])
      const session = yield* AgentSession.make({ toolkit: kit, mode: "local", provider }).pipe(Effect.provideService(Greeting, "hello"))
      const turn = yield* session.send("hi").pipe(Effect.provideService(Caller, "ada"), Effect.annotateLogs("request", "r1"))
      assert.strictEqual(turn.text, "done")
      assert.deepStrictEqual(provider.requests[1]!.messages.flatMap((m) => m._tag === "ToolResult" ? [m.envelope] : []).map((e) => e.ok && e.result), ["hello ada"])
      yield* Effect.log("after")
      assert.isTrue(Option.isNone(yield* Effect.serviceOption(Greeting)))
      assert.deepStrictEqual(logs.filter((l) => l["message"] === "greeting" || l["message"] === "after"), [
        { message: "greeting", request: "r1", tool: "greet", callId: "c1" },
        { message: "after" }
      ])
    }).pipe(Effect.provide([ArgumentValidator.layer, Logger.replace(Logger.defaultLogger, logger)]))
  })
})
