import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AgentSession, ArgumentValidator, type DriftGate, type Provider, Tool, Toolkit } from "../src/index.js"
import { answer, make } from "./support/scriptedProvider.js"

// `tsc -p tsconfig.json` checks this file: an `@ts-expect-error` that no longer finds an error is itself an error.

const echo = Tool.make("echo", {
  description: "Echoes a word.",
  parameters: Schema.Struct({ word: Schema.String }),
  execute: ({ word }) => Effect.succeed(word)
})
const toolkit = Toolkit.make(echo).pipe(Effect.runSync)

type Made<R> = Effect.Effect<AgentSession.AgentSession, AgentSession.MakeError, R>

describe("AgentSession.make's requirements", () => {
  it.effect("a mode typed Mode requires the drift gate; only a mode known to be local goes without; a given provider drops the Provider service", () =>
    Effect.gen(function*() {
      const provider: Provider.AgentProvider = make([answer("ok")])
      const mode = "local" as AgentSession.Mode

      const anyMode = AgentSession.make({ provider, toolkit, mode })
      const gated: Made<ArgumentValidator.ArgumentValidator | DriftGate.DriftGate> = anyMode
      // @ts-expect-error a mode typed `Mode` may be "cloudProfile": the drift gate is required
      const ungated: Made<ArgumentValidator.ArgumentValidator> = anyMode

      const cloud = AgentSession.make({ provider, toolkit, mode: "cloudProfile" })
      // @ts-expect-error cloud-profile mode requires the drift gate
      const cloudUngated: Made<ArgumentValidator.ArgumentValidator> = cloud

      const local: Made<ArgumentValidator.ArgumentValidator> = AgentSession.make({ provider, toolkit, mode: "local" })
      // @ts-expect-error without a provider in the options the Provider service is required
      const noProvider: Made<ArgumentValidator.ArgumentValidator> = AgentSession.make({ toolkit, mode: "local" })

      const s = yield* local.pipe(Effect.provide(ArgumentValidator.layer))
      assert.strictEqual((yield* s.send("hi")).text, "ok")
      assert.isDefined([gated, ungated, cloudUngated, noProvider])
    }))
})
