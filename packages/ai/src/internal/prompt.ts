/**
 * toolgate's history as an @effect/ai `Prompt`: user text (and images, as file parts), assistant text with its tool calls, and tool
 * results whose `result` is the envelope as a JSON object (providers `JSON.stringify` it, so the model
 * reads the envelope's JSON) and whose `isFailure` is `!envelope.ok` (Anthropic's `is_error`).
 */
import * as Prompt from "@effect/ai/Prompt"
import * as Encoding from "effect/Encoding"
import * as Either from "effect/Either"
import type { Message } from "@toolgate/runtime"
import { ToolEnvelope } from "@toolgate/runtime"

/**
 * The conversation as a prompt, after the session's system prompt as a `system` message when it has one;
 * consecutive tool results share one `tool` message, as providers group them.
 */
export const fromMessages = (messages: ReadonlyArray<Message.Message>, systemPrompt?: string): Prompt.Prompt => {
  const out: Array<Prompt.Message> = systemPrompt === undefined ? [] : [Prompt.systemMessage({ content: systemPrompt })]
  let results: Array<Prompt.ToolResultPart> = []
  const flush = () => {
    if (results.length > 0) out.push(Prompt.toolMessage({ content: results }))
    results = []
  }
  for (const message of messages) {
    if (message._tag === "ToolResult") {
      results.push(toolResult(message))
      continue
    }
    flush()
    out.push(message._tag === "User" ? user(message) : assistant(message))
  }
  flush()
  return Prompt.fromMessages(out)
}

/**
 * An image as a file part: inline bytes decoded (the OpenAI model reads a string `data` as a file id, so
 * base64 text would be lost), a URL as a `URL` (its media type `image/*` when unknown).
 */
const imagePart = (image: Message.Image): Prompt.FilePart =>
  image._tag === "ImageData"
    ? Prompt.filePart({ mediaType: image.mediaType, data: Either.getOrElse(Encoding.decodeBase64(image.data), () => new Uint8Array()) })
    : Prompt.filePart({ mediaType: image.mediaType ?? "image/*", data: new URL(image.url) })

/** A user message: its text, then its images. */
const user = (message: Message.User): Prompt.UserMessage =>
  Prompt.userMessage({
    content: [
      ...(message.images !== undefined && message.images.length > 0 && message.text === "" ? [] : [Prompt.textPart({ text: message.text })]),
      ...(message.images ?? []).map(imagePart)
    ]
  })

/** Why one image cannot be sent, or `undefined`. */
const imageProblem = (image: Message.Image): string | undefined => {
  if (image._tag === "ImageData") {
    return typeof image.data === "string" && typeof image.mediaType === "string" && Either.isRight(Encoding.decodeBase64(image.data))
      ? undefined
      : "an image's data is not base64"
  }
  if (image._tag === "ImageUrl") return typeof image.url === "string" && URL.canParse(image.url) ? undefined : "an image's URL does not parse"
  return "an image is neither ImageData nor ImageUrl"
}

/** Why a message's image cannot be sent (data that is not base64, a URL that does not parse, a value that is no image), or `undefined`. */
export const badImage = (messages: ReadonlyArray<Message.Message>): string | undefined => {
  try {
    for (const m of messages) {
      if (m._tag !== "User" || m.images === undefined) continue
      for (const image of m.images) {
        const problem = imageProblem(image)
        if (problem !== undefined) return problem
      }
    }
    return undefined
  } catch {
    return "an image could not be read"
  }
}

const assistant = (message: Message.Assistant): Prompt.AssistantMessage => {
  const text = message.text === "" ? [] : [Prompt.textPart({ text: message.text })]
  const calls = message.toolCalls.map((call) =>
    Prompt.toolCallPart({ id: call.id, name: call.name, params: argumentsValue(call.arguments), providerExecuted: false })
  )
  return Prompt.assistantMessage({ content: [...text, ...calls] })
}

const toolResult = (message: Message.ToolResult): Prompt.ToolResultPart =>
  Prompt.toolResultPart({
    id: message.callId,
    name: message.name,
    isFailure: !message.envelope.ok,
    result: JSON.parse(ToolEnvelope.encode(message.envelope)),
    providerExecuted: false
  })

/**
 * The arguments as a value: providers serialize `params` themselves, so JSON text the model sent (a
 * Chat Completions `arguments` string) is parsed back, and text that is not JSON stays the string it was.
 */
const argumentsValue = (args: unknown): unknown => {
  if (args === undefined || args === null) return {}
  if (typeof args !== "string") return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}
