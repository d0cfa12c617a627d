/**
 * What one request of a session carries: the toolkit's tools in the provider's dialect (`definitions`), the
 * messages, cut for a managed conversation and a context window (`messages`), the system prompt (with a
 * summary of what the window left out), sampling,
 * and for a model without native tool calling the tools as text; `build` puts one request together. Plain
 * functions, no services: the session calls them once per send and once per round.
 *
 * @internal
 */
import { type JsonSchema, JsonValue as J, Normalize, RefAware } from "@toolgate/json-schema"
import type * as Message from "../Message.js"
import * as Provider from "../Provider.js"
import type * as Tool from "../Tool.js"
import type * as Toolkit from "../Toolkit.js"
import * as ContextSummary from "./contextSummary.js"
import * as TextTools from "./textTools.js"

/** The tool definitions of a send and which of them went out strict. */
export interface Definitions {
  readonly tools: ReadonlyArray<Provider.ToolDefinition>
  /** Names of the tools sent with `strict: true` (their calls are prepared with `fromStrictProvider`). */
  readonly strict: ReadonlySet<string>
}

/** How `definitions` builds each tool's parameters besides the dialect. */
export interface DefinitionOptions {
  /** Widen every schema with `RefAware.widen` first, so the model may pass sentinel refs. */
  readonly toolChaining: boolean
  /** Strict mode is off (the session's `strictTools: false`, or tools routed through text): no tool goes out strict. */
  readonly strictDisabled: boolean
}

/**
 * What a tool whose parameters have no JSON Schema form (`tool.schemaError`) is sent with: an object any
 * provider can represent and that says nothing about the arguments. The tool stays listed so a model that
 * calls it gets the validator's `InvalidToolSchema` at call time instead of a silently missing tool; its
 * real schema (`false`) would make an OpenAI-style provider refuse the whole request.
 */
export const unusableParameters: JsonSchema.JsonSchema = Object.freeze({ type: "object" })

/** The parameters and strict flag one schema gets in `dialect`. */
const inDialect = (
  dialect: Provider.SchemaDialect,
  schema: JsonSchema.JsonSchema,
  strictDisabled: boolean
): { readonly parameters: JsonSchema.JsonSchema; readonly strict: boolean } => {
  switch (dialect) {
    case "openai-strict": {
      // Non-strict is the schema as declared: that is what `openAiStrict` itself gives back when it fails
      // open, and its enforced form (optionals required and nullable) would mislead a non-strict model.
      if (strictDisabled) return { parameters: schema, strict: false }
      const normalized = Normalize.openAiStrict(schema)
      return { parameters: normalized.schema, strict: normalized.strict === true }
    }
    case "google":
      return { parameters: Normalize.google(schema).schema, strict: false }
    case "cca":
      return { parameters: Normalize.cca(schema).schema, strict: false }
    case "mcp":
      return { parameters: Normalize.mcp(schema).schema, strict: false }
    default:
      // "none" (and, past the types, a dialect nobody knows): the local schema as declared
      return { parameters: schema, strict: false }
  }
}

/** One tool as the provider is given it. */
const definitionOf = (
  tool: Tool.Tool<any, any>,
  dialect: Provider.SchemaDialect,
  options: DefinitionOptions
): Provider.ToolDefinition => {
  if (tool.schemaError !== undefined) {
    return { name: tool.name, description: tool.description, parameters: unusableParameters, strict: false }
  }
  const schema = options.toolChaining ? RefAware.widen(tool.jsonSchema) : tool.jsonSchema
  const { parameters, strict } = inDialect(dialect, schema, options.strictDisabled)
  return { name: tool.name, description: tool.description, parameters, strict }
}

/**
 * The toolkit's tools in the provider's dialect, in toolkit order: chaining widens each schema first;
 * `openai-strict` sends the enforced schema with `strict: true` only when enforcement succeeded and strict
 * mode is not disabled, else the schema as declared; `google` / `cca` / `mcp` that normaliser's schema;
 * `none` the schema as is. Which of them a request carries is discovery's choice (`toolDiscovery.ts`).
 */
export const definitions = (
  toolkit: Toolkit.Toolkit<any>,
  capabilities: Provider.ProviderCapabilities,
  options: DefinitionOptions
): Definitions => {
  const tools = Array.from(toolkit.tools.values(), (tool) => definitionOf(tool, capabilities.schemaDialect, options))
  return { tools, strict: new Set(tools.filter((t) => t.strict).map((t) => t.name)) }
}

/** The JSON size of each message (0 for one with no JSON text, which cannot happen for decoded messages). */
const sizes = (history: ReadonlyArray<Message.Message>): ReadonlyArray<number> =>
  history.map((message) => J.stringify(message)?.length ?? 0)

/** An index into `length + 1` positions: a fraction rounds down, NaN and below zero are 0, past the end the end. */
const clamp = (n: number, length: number): number =>
  n >= 0 ? Math.min(Math.floor(n), length) : 0

/**
 * Where each whole turn before `end` starts in `history` (from `start`): at every User message, and at
 * `start` itself when the slice opens mid-turn (a managed slice, or a history that does not open with User).
 */
const turnStarts = (history: ReadonlyArray<Message.Message>, start: number, end: number): Array<number> => {
  const starts: Array<number> = []
  for (let i = start; i < end; i++) {
    if (i === start || history[i]?._tag === "User") starts.push(i)
  }
  return starts
}

/**
 * The messages of a request. Managed conversation first: `history.slice(seen)`. Then the context window
 * applies to what is left: while the estimate (the JSON text of the messages, in characters, / 4) exceeds
 * `contextWindow`, the oldest whole turn before `turnStart` is left out (a turn = a User message and what
 * follows it up to the next User; messages before the first User of what is left count as one turn). The
 * current turn (from `turnStart`) is always kept, even when it alone exceeds the window. `seen` and
 * `turnStart` are clamped into the history (NaN or negative → 0, so nothing is ever lost by a bad index).
 */
export const messages = (
  capabilities: Provider.ProviderCapabilities,
  history: ReadonlyArray<Message.Message>,
  turnStart: number,
  seen: number
): ReadonlyArray<Message.Message> => fit(capabilities, history, turnStart, seen).messages

/** Where `messages` cuts: `start` (what a managed backend has not seen), `from` (where the window lets the request begin). */
export const cut = (
  capabilities: Provider.ProviderCapabilities,
  history: ReadonlyArray<Message.Message>,
  turnStart: number,
  seen: number
): { readonly start: number; readonly from: number } => {
  const { from, start } = fit(capabilities, history, turnStart, seen)
  return { start, from }
}

/**
 * `cut`, and the messages from `from` as the request carries them: when they exceed the window, the
 * listing results of earlier turns are collapsed to `<N> entries in <path>` first (oldest first, until
 * the estimate fits), and only then are whole turns left out.
 */
export const fit = (
  capabilities: Provider.ProviderCapabilities,
  history: ReadonlyArray<Message.Message>,
  turnStart: number,
  seen: number
): { readonly start: number; readonly from: number; readonly messages: ReadonlyArray<Message.Message> } => {
  const start = capabilities.managedConversation === true ? clamp(seen, history.length) : 0
  const window = capabilities.contextWindow
  if (window === undefined) return { start, from: start, messages: history.slice(start) }
  const current = Math.max(start, clamp(turnStart, history.length))
  const list = history.slice(start)
  const size = sizes(list).slice()
  // the JSON text of an array: brackets, the members and a comma between each two
  let chars = 2 + Math.max(0, size.length - 1)
  for (const s of size) chars += s
  for (let i = 0; i < current - start && chars / 4 > window; i++) {
    const collapsed = ContextSummary.collapseListing(list[i]!)
    const s = collapsed === undefined ? undefined : J.stringify(collapsed)?.length
    if (s === undefined || s >= size[i]!) continue
    chars -= size[i]! - s
    size[i] = s
    list[i] = collapsed!
  }
  let from = start
  const starts = turnStarts(history, start, current)
  for (let t = 0; t < starts.length && chars / 4 > window; t++) {
    const next = starts[t + 1] ?? current
    for (let i = starts[t]!; i < next; i++) chars -= size[i - start]! + 1
    from = next
  }
  return { start, from, messages: list.slice(from - start) }
}

/** Where a send's words go: the request's system prompt, and a preamble of its user message. */
interface Prompt {
  readonly systemPrompt: string | undefined
  readonly preamble: string | undefined
}

/**
 * The persona, then the summary of the turns the window left out, then the send's directives, then the text
 * tool-calling instructions (`tools`, for a provider without native tool calling), as the system prompt; for
 * a provider that manages the system prompt itself (`backendManagedSystemPrompt`), the persona and the tools,
 * the summary and the directives becoming a preamble of the user message. Empty parts are left out.
 */
const prompt = (
  capabilities: Provider.ProviderCapabilities,
  persona: string | undefined,
  summary: string | undefined,
  directives: string | undefined,
  tools: string | undefined
): Prompt => {
  const join = (...parts: ReadonlyArray<string | undefined>) => {
    const text = parts.filter((p): p is string => p !== undefined && p.trim() !== "").join("\n\n")
    return text === "" ? undefined : text
  }
  return capabilities.backendManagedSystemPrompt === true
    ? { systemPrompt: join(persona, tools), preamble: join(summary, directives) }
    : { systemPrompt: join(persona, summary, directives, tools), preamble: undefined }
}

/** `messages` with `user` (the turn's own message, when the request carries it) preceded by `preamble`. */
const withPreamble = (
  messages: ReadonlyArray<Message.Message>,
  user: Message.Message | undefined,
  preamble: string | undefined
): ReadonlyArray<Message.Message> =>
  preamble === undefined || user?._tag !== "User"
    ? messages
    : messages.map((m) => m === user ? { ...user, text: `${preamble}\n\n${user.text}` } : m)

/** The sampling a request carries: the session's keys, a send's over them; none for a provider that takes none. */
export const sampling = (
  capabilities: Provider.ProviderCapabilities,
  session: Provider.Sampling,
  send: Provider.Sampling
): { readonly sampling: Provider.Sampling | undefined; readonly warnings: ReadonlyArray<string> } => {
  const asked = { ...session, ...send }
  const keys = Object.keys(asked)
  if (keys.length === 0) return { sampling: undefined, warnings: [] }
  if (capabilities.supportsSamplingConfig === true) return { sampling: asked, warnings: [] }
  return {
    sampling: undefined,
    warnings: [`${capabilities.name} declares no sampling support: ${keys.join(", ")} left out of the requests`]
  }
}

/** What one request is made of. */
export interface Parts {
  readonly capabilities: Provider.ProviderCapabilities
  /** History and the turn's messages so far. */
  readonly all: ReadonlyArray<Message.Message>
  /** Where the turn's User message is in `all`. */
  readonly turnStart: number
  /** How many leading messages a managed conversation's backend has seen. */
  readonly seen: number
  readonly definitions: Definitions
  /** The tools the request carries (tool discovery's choice). */
  readonly active: ReadonlySet<string>
  /** Tools go through text: listed in the system prompt, history shown as the model wrote it. */
  readonly textRouted: boolean
  readonly persona: string | undefined
  readonly directives: string | undefined
  readonly toolChoice: Provider.ToolChoice
  readonly structuredOutput: JsonSchema.JsonSchema | undefined
  readonly sampling: Provider.Sampling | undefined
  readonly maxToolCallsPerTurn: number | undefined
  /** The model the send chose (admitted only for `modelSelection: "perRequest"`). */
  readonly model?: string | undefined
}

/** One request: messages cut and prompted, the active tools (natively, or in the system prompt as text), sampling. */
export const build = (parts: Parts): Provider.CompletionRequest => {
  const { capabilities, textRouted } = parts
  const tools = parts.definitions.tools.filter((t) => parts.active.has(t.name))
  const { from, messages, start } = fit(capabilities, parts.all, parts.turnStart, parts.seen)
  const { preamble, systemPrompt } = prompt(
    capabilities,
    parts.persona,
    ContextSummary.summarize(parts.all.slice(start, from)),
    parts.directives,
    textRouted && tools.length > 0 ? TextTools.instructions(tools) : undefined
  )
  const prompted = withPreamble(messages, parts.all[parts.turnStart], preamble)
  return {
    messages: textRouted ? TextTools.transcript(prompted) : prompted,
    tools: capabilities.supportsToolCalling === true ? tools : [],
    toolChoice: parts.toolChoice,
    ...(parts.structuredOutput === undefined ? {} : { structuredOutput: parts.structuredOutput }),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    ...(parts.sampling === undefined ? {} : { sampling: parts.sampling }),
    ...(parts.maxToolCallsPerTurn === undefined ? {} : { maxToolCallsPerTurn: parts.maxToolCallsPerTurn }),
    ...(parts.model === undefined ? {} : { model: parts.model })
  }
}
