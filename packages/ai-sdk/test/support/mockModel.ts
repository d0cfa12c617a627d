/**
 * A scripted `MockLanguageModelV4` (the `ai` package's own mock) for `generateText` and `streamText`: each
 * step answers with the next round, tool calls or text, and every prompt the model received is kept, so a
 * test can read what went back to it.
 */
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"

/** One tool call as the model writes it: `input` is the raw argument text. */
export interface Call {
  readonly id: string
  readonly name: string
  readonly input: string
}

/** One model response: tool calls, or the final text. */
export type Round = { readonly calls: ReadonlyArray<Call> } | { readonly text: string }

/** A prompt as the model receives it (the provider-level messages). */
export type Prompt = Parameters<MockLanguageModelV4["doGenerate"]>[0]["prompt"]

type StreamPart = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}

const finishReason = (round: Round) => ({ unified: "text" in round ? "stop" as const : "tool-calls" as const, raw: undefined })

const content = (round: Round) =>
  "text" in round
    ? [{ type: "text" as const, text: round.text }]
    : round.calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.name, input: c.input }))

/** The model, and the prompts it received, one per step. */
export const scripted = (rounds: ReadonlyArray<Round>) => {
  const prompts: Array<Prompt> = []
  const next = (prompt: Prompt): Round => {
    const round = rounds[prompts.length] ?? { text: "(the script ran out)" }
    prompts.push(prompt)
    return round
  }
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const round = next(prompt)
      return { content: content(round), finishReason: finishReason(round), usage, warnings: [] }
    },
    doStream: async ({ prompt }) => {
      const round = next(prompt)
      const parts: Array<StreamPart> = "text" in round
        ? [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: round.text }, { type: "text-end", id: "t" }]
        : round.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.input }))
      return {
        stream: convertArrayToReadableStream<StreamPart>([
          { type: "stream-start", warnings: [] },
          ...parts,
          { type: "finish", finishReason: finishReason(round), usage }
        ])
      }
    }
  })
  return { model, prompts }
}

/** The tool outputs a prompt carries, by call id. */
export const toolOutputs = (prompt: Prompt | undefined): Map<string, unknown> => {
  const out = new Map<string, unknown>()
  for (const message of prompt ?? []) {
    if (message.role !== "tool") continue
    for (const part of message.content) if (part.type === "tool-result") out.set(part.toolCallId, part.output)
  }
  return out
}
