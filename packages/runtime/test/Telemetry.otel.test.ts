/**
 * A session's spans as an OpenTelemetry exporter receives them: real turns (one with a tool call, one whose
 * provider fails) through `@effect/opentelemetry`'s `NodeSdk` into `@opentelemetry/sdk-trace-base`'s
 * `InMemorySpanExporter`.
 *
 * The names followed are the OpenTelemetry GenAI semantic conventions, semantic-conventions v1.41.0
 * (`docs/gen-ai/gen-ai-spans.md`, `gen-ai-agent-spans.md`; status Development):
 * - inference span: name `chat {gen_ai.request.model}`, kind CLIENT; `gen_ai.operation.name` `chat`,
 *   `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.request.temperature`, `gen_ai.request.top_p`,
 *   `gen_ai.request.max_tokens`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`,
 *   `gen_ai.usage.output_tokens`, `error.type`;
 * - execute tool span: name `execute_tool {gen_ai.tool.name}`, kind INTERNAL; `gen_ai.operation.name`
 *   `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type`;
 * - invoke agent (internal) span: name `invoke_agent {gen_ai.agent.name}` (`invoke_agent` without a name),
 *   kind INTERNAL; `gen_ai.operation.name` `invoke_agent`, `gen_ai.provider.name`, `gen_ai.conversation.id`,
 *   `gen_ai.usage.*`, `error.type`.
 */
import { NodeSdk } from "@effect/opentelemetry"
import { assert, describe, it } from "@effect/vitest"
import { SpanKind, SpanStatusCode } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Either } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session, usage } from "./support/scriptedProvider.js"

const toolkit = Either.getOrThrow(Toolkit.make(Tool.make("add", {
  description: "Adds.",
  parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
  execute: (args) => Effect.succeed((args as { a: number; b: number }).a + (args as { a: number; b: number }).b)
})))

/** Runs `f` with a fresh OpenTelemetry SDK whose spans go to an in-memory exporter `f` can read. */
const exported = <A, E>(f: (spans: () => ReadonlyArray<ReadableSpan>) => Effect.Effect<A, E>) => {
  const exporter = new InMemorySpanExporter()
  return f(() => exporter.getFinishedSpans()).pipe(
    Effect.provide(NodeSdk.layer(() => ({ resource: { serviceName: "toolgate-test" }, spanProcessor: new SimpleSpanProcessor(exporter) })))
  )
}

/** The one span named `name`. */
const one = (spans: ReadonlyArray<ReadableSpan>, name: string): ReadableSpan => {
  const found = spans.filter((s) => s.name === name)
  assert.strictEqual(found.length, 1, `one span ${name}: ${spans.map((s) => s.name).join(", ")}`)
  return found[0]!
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

describe("Telemetry (OpenTelemetry export)", () => {
  it.effect("a named agent: its turn is `invoke_agent {name}` with gen_ai.agent.name; a name that is empty or too long is InvalidOptions", () =>
    exported((finished) =>
      Effect.gen(function*() {
        const provider = make([answer("hi")])
        const s = yield* AgentSession.make({ provider, toolkit, mode: "local", name: "billing-agent" }).pipe(Effect.provide(ArgumentValidator.layer))
        yield* s.send("hello")
        const agent = one(finished(), "invoke_agent billing-agent")
        assert.strictEqual(agent.attributes["gen_ai.agent.name"], "billing-agent")
        assert.strictEqual(agent.attributes["gen_ai.operation.name"], "invoke_agent")
        for (const name of ["", "x".repeat(257), 42 as unknown as string]) {
          const refused = yield* Effect.flip(AgentSession.make({ provider, toolkit, mode: "local", name }).pipe(Effect.provide(ArgumentValidator.layer)))
          assert.strictEqual(refused._tag, "InvalidOptions")
        }
      })))

  for (const whole of [false, true]) {
    it.effect(`a turn with a tool call: invoke_agent, chat {model} per round trip, execute_tool {tool}, with the GenAI attributes (${whole ? "whole" : "streamed"} rounds)`, () =>
      exported((finished) =>
        Effect.gen(function*() {
          const provider = make([
            [call("c1", "add", { a: 1, b: 2 }), usage(10, 5), done],
            answer("3")
          ], { model: "m-1", supportsSamplingConfig: true }, undefined, whole)
          const s = yield* session(provider, toolkit)
          yield* s.send("sum", { sampling: { temperature: 0.2, topP: 0.9, maxTokens: 64 } })
          const spans = finished()

          const agent = one(spans, "invoke_agent")
          assert.strictEqual(agent.kind, SpanKind.INTERNAL)
          assert.strictEqual(agent.status.code, SpanStatusCode.OK)
          assert.deepStrictEqual(agent.attributes, {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": "scripted",
            "gen_ai.conversation.id": s.id,
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 5,
            "toolgate.turn": 1
          })

          const chats = spans.filter((span) => span.name === "chat m-1")
          assert.strictEqual(chats.length, 2)
          const request = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "scripted",
            "gen_ai.request.model": "m-1",
            "gen_ai.request.temperature": 0.2,
            "gen_ai.request.top_p": 0.9,
            "gen_ai.request.max_tokens": 64
          }
          // `@effect/opentelemetry` hands an array attribute to OpenTelemetry as its JSON text
          assert.deepStrictEqual({ ...chats[0]!.attributes, "gen_ai.response.finish_reasons": JSON.parse(String(chats[0]!.attributes["gen_ai.response.finish_reasons"])) }, {
            ...request,
            "gen_ai.response.finish_reasons": ["tool_calls"],
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 5
          })
          // the second round reported no usage: the counts are absent, not 0
          assert.deepStrictEqual({ ...chats[1]!.attributes, "gen_ai.response.finish_reasons": JSON.parse(String(chats[1]!.attributes["gen_ai.response.finish_reasons"])) }, {
            ...request,
            "gen_ai.response.finish_reasons": ["stop"]
          })
          for (const chat of chats) {
            assert.strictEqual(chat.kind, SpanKind.CLIENT)
            assert.strictEqual(parentOf(chat), agent.spanContext().spanId)
          }

          const tool = one(spans, "execute_tool add")
          assert.strictEqual(tool.kind, SpanKind.INTERNAL)
          assert.strictEqual(parentOf(tool), agent.spanContext().spanId)
          assert.deepStrictEqual(tool.attributes, {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "add",
            "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.type": "function",
            "toolgate.tool.outcome": "valid",
            "toolgate.tool.issue_count": 0,
            "toolgate.tool.result": "success"
          })
          assert.isTrue(spans.every((span) => span.attributes["error.type"] === undefined))
        })))
  }

  it.effect("a failed turn: error.type is the error's _tag on the chat and invoke_agent spans, and no usage is invented", () =>
    exported((finished) =>
      Effect.gen(function*() {
        const s = yield* session(make([{ fail: { reason: "down", retryable: false } }]), toolkit)
        const error = yield* Effect.flip(s.send("sum"))
        const spans = finished()
        const chat = one(spans, "chat")
        assert.strictEqual(chat.kind, SpanKind.CLIENT)
        assert.strictEqual(chat.status.code, SpanStatusCode.ERROR)
        assert.strictEqual(chat.attributes["error.type"], "ProviderError")
        assert.isUndefined(chat.attributes["gen_ai.request.model"])
        assert.isUndefined(chat.attributes["gen_ai.response.finish_reasons"])
        const agent = one(spans, "invoke_agent")
        assert.strictEqual(agent.status.code, SpanStatusCode.ERROR)
        assert.strictEqual(agent.attributes["error.type"], error._tag)
        for (const span of [chat, agent]) {
          assert.isUndefined(span.attributes["gen_ai.usage.input_tokens"])
          assert.isUndefined(span.attributes["gen_ai.usage.output_tokens"])
        }
      })))

  it.effect("a turn whose provider reports no usage leaves the usage attributes out of every span", () =>
    exported((finished) =>
      Effect.gen(function*() {
        const s = yield* session(make([[call("c1", "add", { a: 1, b: 1 }), done], answer("2")]), toolkit)
        yield* s.send("sum")
        const spans = finished()
        assert.deepStrictEqual(spans.map((span) => span.name).sort(), ["ArgumentValidator.prepare", "chat", "chat", "execute_tool add", "invoke_agent"])
        assert.isTrue(spans.every((span) => !("gen_ai.usage.input_tokens" in span.attributes) && !("gen_ai.usage.output_tokens" in span.attributes)))
      })))
})
