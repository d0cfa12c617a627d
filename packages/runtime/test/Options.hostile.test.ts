/**
 * Options of the wrong kind fail typed where they are given, never with a default taken in silence:
 * `Tool.make`'s `timeout` (the tool is unusable: preparing a call is `InvalidToolSchema`), and every option
 * of `ArgumentValidator.make` (`InvalidOptions`), and a provider's capabilities of the wrong kind (`AgentSession.make`
 * decodes them with `Provider.CapabilityFlags`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import { AgentSession, ArgumentValidator, Tool, Toolkit } from "@toolgate/runtime"
import { make as scripted } from "./support/scriptedProvider.js"

const tool = (timeout: unknown) =>
  Tool.make("t", { description: "d", parameters: { type: "object" }, execute: () => Effect.succeed("ok"), timeout: timeout as Tool.Timeout })

describe("options of the wrong kind", () => {
  it.effect("Tool.make: a timeout that is no duration above zero makes an unusable tool, never the 120 s default", () =>
    Effect.gen(function*() {
      const validator = yield* ArgumentValidator.make()
      for (const timeout of ["soon", -5, 0, Number.NaN, {}, [1], true, "-3 seconds"]) {
        const t = tool(timeout)
        assert.isDefined(t.schemaError, String(timeout))
        assert.include(t.schemaError, "`timeout`")
        const error = yield* Effect.flip(validator.prepare(t, {}, { callId: "c" }))
        assert.strictEqual(error._tag, "InvalidToolSchema")
      }
      assert.isTrue(Duration.equals(tool("5 seconds").timeout as Duration.Duration, Duration.seconds(5)))
      assert.strictEqual(tool("none").timeout, "none")
      assert.isUndefined(tool(undefined).timeout)
      assert.isUndefined(tool(undefined).schemaError)
    }))

  it.effect("ArgumentValidator.make: a bad depth, policy, per-tool policy or chaining flag is InvalidOptions", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<unknown> = [
        { maxArgumentDepth: 0 },
        { maxArgumentDepth: -1 },
        { maxArgumentDepth: 2.5 },
        { maxArgumentDepth: "64" },
        { maxArgumentDepth: Number.POSITIVE_INFINITY },
        { policy: "Strict" },
        { policies: { search: "loose" } },
        { policies: new Map([["search", "nope"]]) },
        { toolChaining: "yes" },
        "lenient",
        { get policy(): string { throw new Error("getter") } }
      ]
      for (const [i, options] of bad.entries()) {
        const error = yield* Effect.flip(ArgumentValidator.make(options as ArgumentValidator.Options).pipe(Effect.tap(() => Effect.die(`options ${i} accepted`))))
        assert.strictEqual(error._tag, "InvalidOptions", `options ${i}`)
        assert.strictEqual(error.of, "ArgumentValidator")
      }
      const fine = yield* ArgumentValidator.make({ maxArgumentDepth: 3, policy: "strict", policies: JSON.parse("{\"__proto__\":\"lenient\"}") })
      assert.strictEqual(fine.policyFor("__proto__"), "lenient")
      assert.strictEqual(fine.policyFor("other"), "strict")
      const deep = yield* Effect.flip(fine.prepare(tool(undefined), { a: { b: { c: { d: 1 } } } }, { callId: "c" }))
      assert.strictEqual(deep._tag, "InvalidToolArguments")
    }))

  it.effect("AgentSession.make: a provider declaring a capability of the wrong kind is InvalidOptions", () =>
    Effect.gen(function*() {
      const toolkit = Either.getOrThrow(Toolkit.make())
      const base = scripted([])
      for (const [i, wrong] of [{ executionModel: "sometimes" }, { maxTools: -1 }, { contextWindow: "big" }, { schemaDialect: "yaml" }, { managedConversation: 1 }].entries()) {
        const provider = { ...base, capabilities: { ...base.capabilities, ...wrong } as never }
        const error = yield* Effect.flip(AgentSession.make({ provider, toolkit, mode: "local" }).pipe(
          Effect.tap(() => Effect.die(`capabilities ${i} accepted`)),
          Effect.provide(ArgumentValidator.layer)
        ))
        assert.strictEqual(error._tag, "InvalidOptions", `capabilities ${i}`)
      }
    }))
})
