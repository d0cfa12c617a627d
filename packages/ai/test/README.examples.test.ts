/**
 * The examples in packages/ai/README.md and docs/reference.md run as written (the rule: the runtime's
 * packages/test-support/src/readmeExamples.ts), each against fresh loopback servers replaying recorded streams: the
 * Responses API for `OpenAiLanguageModel` (`OPENAI_API_URL`), the Messages API for `AnthropicLanguageModel`
 * (`ANTHROPIC_API_URL`). The keys are stand-ins; the servers do not read them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { check, examples } from "@toolgate/test-support/readmeExamples"
import { json, serve, sse } from "./support/loopback.js"
import * as Responses from "./support/responses.js"

const packageDir = path.resolve(import.meta.dirname, "..")
const inReadme = examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))
// numbered after the README's, so no two examples share a file name
const inReference = examples(fs.readFileSync(path.join(packageDir, "docs/reference.md"), "utf8"))
  .map((e) => ({ ...e, index: e.index + inReadme.length }))
const found = [...inReadme, ...inReference]

/** What the README's example's model says: a call with days "15", then the answer. */
const openAiRounds = [
  sse(...Responses.created(), ...Responses.functionCall(0, "call_1", "get_forecast", "{\"city\":\"Oslo\",", "\"days\":\"15\"}"), ...Responses.completed(300, 25)),
  sse(...Responses.created(), ...Responses.message(0, "Oslo: sunny ", "for 15 days."), ...Responses.completed(420, 9))
]

/** What the reference's example's model says: two calls in one (not streamed) message. */
const anthropicRounds = [json({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [
    { type: "tool_use", id: "toolu_01", name: "get_forecast", input: { city: "Oslo", days: "15" } },
    { type: "tool_use", id: "toolu_02", name: "get_forecast", input: { city: "Oslo", days: 40 } }
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 100, output_tokens: 40 }
})]

describe("README.md examples", () => {
  it("the README has one runnable example, the reference another, all with stated outputs", () => {
    assert.strictEqual(inReadme.length, 1)
    assert.isAtLeast(inReference.length, 1)
    assert.isTrue(found.every((e) => e.expectations.length > 0))
  })

  for (const example of found) {
    it.scopedLive(`example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
      Effect.gen(function*() {
        const openAi = yield* serve(openAiRounds)
        const anthropic = yield* serve(anthropicRounds)
        yield* Effect.promise(() =>
          check(example, packageDir, {
            ...process.env,
            OPENAI_API_KEY: "not-a-key",
            OPENAI_API_URL: `${openAi.url}/v1`,
            ANTHROPIC_API_KEY: "not-a-key",
            ANTHROPIC_API_URL: anthropic.url
          })
        )
      }), 90_000)
  }
})
