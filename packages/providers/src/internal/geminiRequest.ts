/**
 * A `CompletionRequest` as a `streamGenerateContent` request body (JSON text). The history becomes
 * `contents`: a User message a `user` text part (then its images, `inlineData` or `fileData`), an Assistant message a `model` content of its text and a
 * `functionCall` part per call (arguments as an object; the thought signature Gemini gave the call sent
 * back with it), a tool result a `user` `functionResponse` part whose `response` is the toolgate envelope;
 * adjacent contents of one role are merged, so the answers to parallel calls travel together as Gemini
 * requires. Tools become one `functionDeclarations` list in the endpoint's dialect (`parametersJsonSchema`,
 * or legacy `parameters` for Claude through Cloud Code Assist), the tool choice a `functionCallingConfig`
 * mode, structured output `responseJsonSchema` beside the caller's `generationConfig`, and the caller's
 * system instruction. Cloud Code Assist wraps it all as `{ model, project, request }`.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { JsonSchema } from "@toolgate/json-schema"
import { JsonValue as J, Normalize } from "@toolgate/json-schema"
import type { Message, Provider } from "@toolgate/runtime"

/** Which declaration field the parameters go on, and the normaliser that readies them for it. */
export type Dialect = "google" | "cca"

/** What the body needs besides the request. */
export interface Settings {
  readonly model: string
  readonly dialect: Dialect
  /** Cloud Code Assist: the body is wrapped as `{ model, project, request }`. */
  readonly wrapped: boolean
  readonly project: string | undefined
  /** The parameters of a definition in the dialect (memoised by the caller). */
  readonly parameters: (definition: Provider.ToolDefinition) => JsonSchema.JsonSchema
  /** The thought signature Gemini sent with a call, to send back with it. */
  readonly signature: (callId: string) => string | undefined
  /** Gemini 3 refuses a model turn whose calls lost their signature: such a turn gets Google's documented sentinel. */
  readonly requiresSignatures: boolean
  readonly systemInstruction: string | undefined
  /** Sampling and thinking settings as the caller gave them (decoded with the options). */
  readonly generationConfig: { readonly [key: string]: unknown } | undefined
}

/** What Google documents for a call whose signature is lost (a history from elsewhere, a restarted process). */
export const skipSignature = "skip_thought_signature_validator"

/** Whether a model validates thought signatures on replayed calls (Gemini 3). */
export const requiresSignatures = (model: string): boolean => /^gemini-3[.-]/.test(model)

type Wire = { readonly [key: string]: unknown }
interface Content {
  readonly role: "user" | "model"
  readonly parts: Array<Wire>
}

/** The normalised parameters of a schema in `dialect`, and whether the normaliser had to give up on it. */
export const normalize = (dialect: Dialect, schema: JsonSchema.JsonSchema): { readonly schema: JsonSchema.JsonSchema; readonly fallback: string | undefined } => {
  const normalized = dialect === "cca" ? Normalize.cca(schema) : Normalize.google(schema)
  // Both normalisers report a whole-schema replacement as a change at the root saying so.
  const gaveUp = normalized.changes.find((c) => c.path === "" && c.change.includes("replaced by {type: object, properties: {}}"))
  return { schema: normalized.schema, fallback: gaveUp?.change }
}

/** Function names Gemini accepts: a letter or `_` first, then letters, digits, `_ . : -`, at most 64. */
const functionName = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/

/**
 * The tool parameters of one provider: each schema normalised into `dialect` once per schema object (a
 * session sends the same definitions every round), and the warnings a list of tools deserves: a name
 * Gemini may refuse, a schema the normaliser gave up on (sent without parameters).
 */
export const parameters = (dialect: Dialect) => {
  const cache = new WeakMap<object, ReturnType<typeof normalize>>()
  const of = (schema: JsonSchema.JsonSchema) => {
    if (typeof schema !== "object" || schema === null) return normalize(dialect, schema)
    const known = cache.get(schema)
    if (known !== undefined) return known
    const fresh = normalize(dialect, schema)
    cache.set(schema, fresh)
    return fresh
  }
  const warnings = (definition: Provider.ToolDefinition): ReadonlyArray<Provider.ToolSchemaWarning> => {
    const out: Array<Provider.ToolSchemaWarning> = []
    if (!functionName.test(definition.name)) {
      out.push({ tool: definition.name, message: "Gemini takes function names of 1 to 64 letters, digits, `_ . : -`, starting with a letter or `_`; it may refuse this one" })
    }
    const fallback = of(definition.parameters).fallback
    if (fallback !== undefined) {
      out.push({ tool: definition.name, message: `its parameters are sent as {type: object, properties: {}} (the model sees none): ${fallback}` })
    }
    return out
  }
  return { of: (definition: Provider.ToolDefinition) => of(definition.parameters).schema, warnings }
}

/** A call's arguments as the object `args` must be: an object as is, JSON text of an object parsed, else `{}`. */
export const argumentsObject = (args: Message.ToolCall["arguments"]): J.JsonObject => {
  if (J.isObject(args)) return args
  if (typeof args === "string") {
    try {
      const parsed: unknown = JSON.parse(args)
      if (J.isObject(parsed)) return parsed
    } catch {
      // not JSON: the model's text cannot be sent as `args`; the validator's envelope already told it so
    }
  }
  return {}
}

/** An image as a Gemini part: inline bytes as `inlineData`, a URL as `fileData` (its media type when known); what is no image throws (`body` fails). */
const imagePart = (image: Message.Image): Wire => {
  if (image._tag === "ImageData" && typeof image.data === "string" && typeof image.mediaType === "string") {
    return { inlineData: { mimeType: image.mediaType, data: image.data } }
  }
  if (image._tag === "ImageUrl" && typeof image.url === "string") {
    return { fileData: { ...(typeof image.mediaType === "string" ? { mimeType: image.mediaType } : {}), fileUri: image.url } }
  }
  throw new TypeError("not an image")
}

const parts = (settings: Settings, m: Message.Message): Content | undefined => {
  switch (m._tag) {
    case "User":
      return m.images === undefined || m.images.length === 0
        ? { role: "user", parts: [{ text: m.text }] }
        : { role: "user", parts: [...(m.text === "" ? [] : [{ text: m.text }]), ...m.images.map(imagePart)] }
    case "Assistant": {
      const known = m.toolCalls.map((call) => settings.signature(call.id))
      // Only a step's first call carries the signature (parallel calls share it); none known: the sentinel there
      if (settings.requiresSignatures && known.length > 0 && !known.some((s) => s !== undefined)) known[0] = skipSignature
      const calls = m.toolCalls.map((call, i): Wire => {
        const signature = known[i]
        return {
          functionCall: { id: call.id, name: call.name, args: argumentsObject(call.arguments) },
          ...(signature === undefined ? {} : { thoughtSignature: signature })
        }
      })
      const all = m.text === "" ? calls : [{ text: m.text }, ...calls]
      return all.length === 0 ? undefined : { role: "model", parts: all }
    }
    case "ToolResult":
      return { role: "user", parts: [{ functionResponse: { id: m.callId, name: m.name, response: m.envelope } }] }
  }
}

/** The history as `contents`, adjacent contents of one role merged, empty assistant turns left out. */
export const contents = (settings: Settings, messages: ReadonlyArray<Message.Message>): ReadonlyArray<Content> => {
  const out: Array<Content> = []
  for (const m of messages) {
    const content = parts(settings, m)
    if (content === undefined) continue
    const last = out.at(-1)
    if (last !== undefined && last.role === content.role) last.parts.push(...content.parts)
    else out.push(content)
  }
  return out
}

const modes = { auto: "AUTO", required: "ANY", none: "NONE" } as const

const declaration = (settings: Settings, definition: Provider.ToolDefinition): Wire => ({
  name: definition.name,
  description: definition.description,
  [settings.dialect === "cca" ? "parameters" : "parametersJsonSchema"]: settings.parameters(definition)
})

const inner = (settings: Settings, request: Provider.CompletionRequest): Wire => {
  const hasTools = request.tools.length > 0
  const structured = request.structuredOutput === undefined ? {} : {
    responseMimeType: "application/json",
    responseJsonSchema: Normalize.google(request.structuredOutput).schema
  }
  const sampling = request.sampling ?? {}
  const generationConfig = {
    ...settings.generationConfig,
    ...(sampling.temperature === undefined ? {} : { temperature: sampling.temperature }),
    ...(sampling.topP === undefined ? {} : { topP: sampling.topP }),
    ...(sampling.maxTokens === undefined ? {} : { maxOutputTokens: sampling.maxTokens }),
    ...structured
  }
  // the provider's own instruction first, then the session's system prompt (persona, directives)
  const system = [settings.systemInstruction, request.systemPrompt].filter((t) => t !== undefined).join("\n\n")
  return {
    ...(system === "" ? {} : { systemInstruction: { parts: [{ text: system }] } }),
    contents: contents(settings, request.messages),
    ...(hasTools ? { tools: [{ functionDeclarations: request.tools.map((d) => declaration(settings, d)) }] } : {}),
    ...(hasTools && request.toolChoice !== "auto" ? { toolConfig: { functionCallingConfig: { mode: modes[request.toolChoice] } } } : {}),
    ...(Object.keys(generationConfig).length === 0 ? {} : { generationConfig })
  }
}

/** The request body as JSON text, or why it has none (a value JSON cannot hold). */
export const body = (settings: Settings, request: Provider.CompletionRequest): Either.Either<string, string> => {
  try {
    const request_ = inner(settings, request)
    const wire = settings.wrapped ?
      { model: settings.model, ...(settings.project === undefined ? {} : { project: settings.project }), request: request_ } :
      request_
    const text = J.stringify(wire)
    return text === undefined ? Either.left("the request cannot be written as JSON") : Either.right(text)
  } catch {
    return Either.left("the request could not be read")
  }
}
