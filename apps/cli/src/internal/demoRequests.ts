/**
 * What each stream request of a demo scenario offered the model: its native tools, or (a text-routed
 * provider) the tools its system prompt lists. The discovery and text-routed scenarios show it in their
 * trace, one note after each round, and their checks read it (no request over `maxTools`; no native tools).
 * On Gemini's wire, the relay's model also names the function declarations it received (`{{functionDeclarations}}`
 * in its first reply): what the provider's dialect made of the app's schemas, as the relay read it.
 *
 * @internal
 */
import type { Message, Provider } from "@toolgate/runtime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Step } from "./demoTrace.js"

/** One stream request, as the provider was asked it. */
export interface Offered {
  /** The tools the request carried natively, by name. */
  readonly tools: ReadonlyArray<string>
  /** The tools its system prompt lists in `<tools>` (a text-routed request), by name. */
  readonly promptTools: ReadonlyArray<string>
}

/** The tool names a text-routed system prompt lists (each a `{"type":"function","function":{"name":…}}` line). */
const promptTools = (systemPrompt: string | undefined): ReadonlyArray<string> =>
  systemPrompt === undefined ? [] : Array.from(systemPrompt.matchAll(/"function":\{"name":"([^"\\]{1,200})"/g), (m) => m[1]!)

/** The provider, recording what each stream request offered. */
export const recorded = (provider: Provider.AgentProvider) => {
  const offered: Array<Offered> = []
  const record = (request: Provider.CompletionRequest) =>
    void offered.push({ tools: request.tools.map((t) => t.name), promptTools: promptTools(request.systemPrompt) })
  const complete = provider.complete
  const wrapped: Provider.AgentProvider = {
    ...provider,
    stream: (request) => Stream.suspend(() => (record(request), provider.stream(request))),
    ...(complete === undefined ? {} : { complete: (request) => Effect.suspend(() => (record(request), complete(request))) })
  }
  return { provider: wrapped, offered: offered as ReadonlyArray<Offered> }
}

/** What one request offered, in a few words. */
const describe = (request: Offered): string =>
  request.tools.length > 0
    ? `offered ${request.tools.length} tool${request.tools.length === 1 ? "" : "s"}: ${request.tools.join(", ")}`
    : request.promptTools.length > 0
    ? `carried no native tools; the system prompt lists ${request.promptTools.join(", ")} and asks for <tool_call> blocks`
    : "carried no tools"

/** The trace with a note after each round's step saying what that round's request offered. */
export const annotate = (trace: ReadonlyArray<Step>, offered: ReadonlyArray<Offered>): ReadonlyArray<Step> => {
  let round = 0
  return trace.flatMap((step): ReadonlyArray<Step> => {
    if (step.step !== "round") return [step]
    const request = offered[round++]
    return request === undefined ? [step] : [step, { step: "note", text: `request ${round} ${describe(request)}` }]
  })
}

/** A function declaration as the relay received it: the name and whichever parameter field came. */
const Declaration = Schema.Struct({ name: Schema.String, parametersJsonSchema: Schema.optional(Schema.Unknown), parameters: Schema.optional(Schema.Unknown) })
export type Declaration = typeof Declaration.Type

const decodeDeclarations = Schema.decodeUnknownOption(Schema.parseJson(Schema.Array(Declaration)))

/** What the scripted model's first reply says it was declared ("Declared to me: [...]"), read from the history; empty if it said nothing. */
export const declared = (history: ReadonlyArray<Message.Message>): ReadonlyArray<Declaration> => {
  const first = history.find((m) => m._tag === "Assistant")
  const echoed = first?._tag === "Assistant" ? /^Declared to me: (\[.*\])$/m.exec(first.text) : null
  return echoed === null ? [] : Option.getOrElse(decodeDeclarations(echoed[1]), () => [])
}

/** A declaration in a few words: its name, the field its parameters came on, and them. */
const describeDeclaration = (d: Declaration): string => {
  const [field, schema] = d.parametersJsonSchema !== undefined ? ["parametersJsonSchema", d.parametersJsonSchema] : d.parameters !== undefined ? ["parameters", d.parameters] : ["no parameters", undefined]
  return `${d.name} on ${field}${schema === undefined ? "" : ` ${JSON.stringify(schema)}`}`
}

/** The trace with a note after the first request's step saying what the relay received (nothing added without declarations). */
export const annotateDeclared = (trace: ReadonlyArray<Step>, declarations: ReadonlyArray<Declaration>): ReadonlyArray<Step> => {
  if (declarations.length === 0) return trace
  const at = trace.findIndex((s) => s.step === "round")
  const after = at >= 0 && trace[at + 1]?.step === "note" ? at + 2 : at + 1
  const note: Step = { step: "note", text: `the relay received ${declarations.map(describeDeclaration).join("; ")}` }
  return [...trace.slice(0, after), note, ...trace.slice(after)]
}
