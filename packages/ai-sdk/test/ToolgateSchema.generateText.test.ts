/**
 * `ToolgateSchema` inside the real AI SDK loop: `generateText` and `streamText` over the `ai` package's own
 * `MockLanguageModelV4`, multi-step with `stopWhen`. What reaches `execute`, and what the model reads on the
 * next step when a call is rejected.
 */
import { assert, describe, it } from "@effect/vitest"
import { generateText, InvalidToolInputError, isStepCount, jsonSchema, streamText, tool } from "ai"
import { Effect, FastCheck as fc } from "effect"
import { ToolgateSchema } from "../src/index.js"
import { type Round, scripted, toolOutputs } from "./support/mockModel.js"

const forecast = {
  type: "object",
  properties: {
    city: { type: "string" },
    days: { type: "integer", minimum: 1, maximum: 14 },
    hours: { type: "array", items: { type: "integer" } }
  },
  required: ["city", "days"],
  additionalProperties: false
} as const

interface Forecast {
  readonly city: string
  readonly days: number
}

/** One turn with the `get_forecast` tool: what `execute` received, the result, and the model's prompts. */
const turn = async (rounds: ReadonlyArray<Round>, inputSchema = ToolgateSchema.make<Forecast>(forecast)) => {
  const executed: Array<unknown> = []
  const { model, prompts } = scripted(rounds)
  const getForecast = tool({
    description: "Weather forecast for a city",
    inputSchema,
    execute: async (args) => {
      executed.push(args)
      return `${args.city}: sunny for ${args.days} days`
    }
  })
  const result = await generateText({ model, prompt: "Forecast?", tools: { get_forecast: getForecast }, stopWhen: isStepCount(5) })
  return { executed, result, prompts }
}

const call = (id: string, input: string): Round => ({ calls: [{ id, name: "get_forecast", input }] })
const done: Round = { text: "Sunny." }

/** The text a tool-error output carries back to the model. */
const errorText = (output: unknown): string => {
  assert.deepInclude(output as object, { type: "error-text" })
  return (output as { readonly value: string }).value
}

describe("generateText", () => {
  it("\"15\" reaches execute as 15 (the AI SDK's own jsonSchema() passes the string through)", async () => {
    const args = "{\"city\":\"Oslo\",\"days\":\"14\"}"
    const plain = await turn([call("c1", args), done], jsonSchema<Forecast>(forecast))
    assert.deepStrictEqual(plain.executed, [{ city: "Oslo", days: "14" }])
    const gated = await turn([call("c1", args), done])
    assert.deepStrictEqual(gated.executed, [{ city: "Oslo", days: 14 }])
    assert.strictEqual(gated.result.text, "Sunny.")
    assert.deepStrictEqual(toolOutputs(gated.prompts[1]).get("c1"), { type: "text", value: "Oslo: sunny for 14 days" })
  })

  it("an invalid call never reaches execute; the model reads the issue on the next step and repairs it", async () => {
    const { executed, result, prompts } = await turn([
      call("c1", "{\"city\":\"Oslo\",\"days\":\"30\"}"),
      call("c2", "{\"city\":\"Oslo\",\"days\":\"3\"}"),
      done
    ])
    assert.deepStrictEqual(executed, [{ city: "Oslo", days: 3 }])
    assert.strictEqual(result.steps.length, 3)
    const text = errorText(toolOutputs(prompts[1]).get("c1"))
    assert.include(text, "Argument `days` must be at most 14; got integer 30.")
    assert.match(text, /^AI_InvalidToolInputError: Invalid input for tool get_forecast: /)
    // the same rejection, structured, on the step's call (marked invalid; its tool-error part holds the text)
    const [rejected] = result.steps[0]!.toolCalls
    assert.isTrue(rejected?.invalid)
    assert.isTrue(InvalidToolInputError.isInstance(rejected?.error))
    assert.deepStrictEqual(ToolgateSchema.issuesOf(rejected?.error)?.map((i) => i.field), ["days"])
    assert.deepInclude(result.steps[0]!.content.find((p) => p.type === "tool-error"), { toolCallId: "c1", error: text })
    assert.deepStrictEqual(toolOutputs(prompts[2]).get("c2"), { type: "text", value: "Oslo: sunny for 3 days" })
    assert.strictEqual(result.text, "Sunny.")
  })

  it("several issues reach the model together, one sentence a line", async () => {
    const { executed, prompts } = await turn([call("c1", "{\"days\":0,\"when\":\"now\"}"), done])
    assert.deepStrictEqual(executed, [])
    const text = errorText(toolOutputs(prompts[1]).get("c1"))
    for (const sentence of ["Missing required argument `city` (string).", "Argument `days` must be at least 1; got integer 0.", "Unknown argument `when`; allowed: city, days, hours."]) {
      assert.include(text, sentence)
    }
  })

  it("without stopWhen (one step) the rejected call ends the turn: the tool-error is in the result, the model is not asked again", async () => {
    const executed: Array<unknown> = []
    const { model, prompts } = scripted([call("c1", "{\"city\":\"Oslo\",\"days\":30}"), done])
    const getForecast = tool({ inputSchema: ToolgateSchema.make<Forecast>(forecast), execute: async (args) => executed.push(args) })
    const result = await generateText({ model, prompt: "Forecast?", tools: { get_forecast: getForecast } })
    assert.strictEqual(prompts.length, 1)
    assert.deepStrictEqual(executed, [])
    assert.deepStrictEqual(result.steps[0]!.content.filter((p) => p.type === "tool-error").map((p) => p.toolCallId), ["c1"])
  })

  it("repairToolCall sees only what toolgate could not fix, with toolgate's issues on the error", async () => {
    const seen: Array<unknown> = []
    const executed: Array<unknown> = []
    const { model } = scripted([call("c1", "{\"city\":\"Oslo\",\"days\":\"3\"}"), call("c2", "{\"city\":\"Oslo\",\"days\":\"30\"}"), done])
    const getForecast = tool({ inputSchema: ToolgateSchema.make<Forecast>(forecast), execute: async (args) => executed.push(args) })
    await generateText({
      model,
      prompt: "Forecast?",
      tools: { get_forecast: getForecast },
      stopWhen: isStepCount(5),
      repairToolCall: async ({ error, toolCall }) => {
        seen.push([toolCall.toolCallId, ToolgateSchema.issuesOf(error)?.map((i) => i.message)])
        // an app could clamp here; this one only caps days at 14
        return { ...toolCall, input: JSON.stringify({ city: "Oslo", days: 14 }) }
      }
    })
    assert.deepStrictEqual(seen, [["c2", ["Argument `days` must be at most 14; got integer 30."]]])
    assert.deepStrictEqual(executed, [{ city: "Oslo", days: 3 }, { city: "Oslo", days: 14 }])
  })

  it.effect.prop(
    "any valid argument object reaches execute as the model wrote it",
    [fc.record({ city: fc.string(), days: fc.integer({ min: 1, max: 14 }), hours: fc.array(fc.integer()) }, { requiredKeys: ["city", "days"] })],
    ([args]) =>
      Effect.promise(async () => {
        const { executed } = await turn([call("c1", JSON.stringify(args)), done])
        assert.deepStrictEqual(executed, [args])
      }),
    { fastCheck: { numRuns: 20 } }
  )

  it.effect.prop("any integer in bounds written as a string runs as that integer", [fc.integer({ min: 1, max: 14 })], ([days]) =>
    Effect.promise(async () => {
      const { executed } = await turn([call("c1", `{"city":"Lima","days":"${days}"}`), done])
      assert.deepStrictEqual(executed, [{ city: "Lima", days }])
    }), { fastCheck: { numRuns: 20 } })
})

describe("streamText", () => {
  it("coerces the same way, and an invalid call is a tool-error part in the stream", async () => {
    const executed: Array<unknown> = []
    const { model, prompts } = scripted([call("c1", "{\"city\":\"Oslo\",\"days\":\"99\"}"), call("c2", "{\"city\":\"Oslo\",\"days\":\"2\"}"), done])
    const getForecast = tool({
      inputSchema: ToolgateSchema.make<Forecast>(forecast),
      execute: async (args) => {
        executed.push(args)
        return "ok"
      }
    })
    const result = streamText({ model, prompt: "Forecast?", tools: { get_forecast: getForecast }, stopWhen: isStepCount(5) })
    const kinds: Array<string> = []
    for await (const part of result.fullStream) if (part.type === "tool-error" || part.type === "tool-result") kinds.push(`${part.type}:${part.toolCallId}`)
    assert.deepStrictEqual(kinds, ["tool-error:c1", "tool-result:c2"])
    assert.deepStrictEqual(executed, [{ city: "Oslo", days: 2 }])
    assert.include(errorText(toolOutputs(prompts[1]).get("c1")), "Argument `days` must be at most 14; got integer 99.")
    assert.strictEqual(await result.text, "Sunny.")
  })
})

describe("hostile input through generateText", () => {
  it("a __proto__ key or non-JSON text: the AI SDK's own parser rejects it before validate; execute never runs", async () => {
    const { executed, prompts, result } = await turn([
      {
        calls: [
          { id: "p", name: "get_forecast", input: "{\"city\":\"Oslo\",\"days\":2,\"__proto__\":{\"polluted\":true}}" },
          { id: "t", name: "get_forecast", input: "{city: Oslo, days: 2" }
        ]
      },
      done
    ])
    assert.deepStrictEqual(executed, [])
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    const outputs = toolOutputs(prompts[1])
    assert.include(errorText(outputs.get("p")), "forbidden prototype property")
    assert.include(errorText(outputs.get("t")), "JSON parsing failed")
    assert.strictEqual(result.text, "Sunny.")
  })

  it("a 1 MB argument: toolgate's issue quotes it short (the AI SDK's own prefix echoes the whole value)", async () => {
    const huge = "x".repeat(1_000_000)
    const { executed, prompts } = await turn([call("c1", `{"city":"Oslo","days":"${huge}"}`), done])
    assert.deepStrictEqual(executed, [])
    const text = errorText(toolOutputs(prompts[1]).get("c1"))
    assert.include(text, "Argument `days` must be integer, got string \"xxxx")
    assert.include(text, "(1000000 characters).")
    assert.isAbove(text.length, 1_000_000)
  })

  it("1,000 levels of nesting where integers belong: rejected with an issue, execute never runs", async () => {
    const deep = "[".repeat(1_000) + "]".repeat(1_000)
    const { executed, prompts } = await turn([call("c1", `{"city":"Oslo","days":2,"hours":${deep}}`), done])
    assert.deepStrictEqual(executed, [])
    assert.include(errorText(toolOutputs(prompts[1]).get("c1")), "Argument `hours.0` must be integer, got an array")
  })

  it("100,000 levels overflow the AI SDK's own message handling, with or without toolgate (the README's stated limit)", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    for (const inputSchema of [jsonSchema<Forecast>(forecast), ToolgateSchema.make<Forecast>(forecast)]) {
      const error: unknown = await turn([call("c1", `{"city":"Oslo","days":2,"hours":${deep}}`), done], inputSchema).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, RangeError)
    }
  })
})
