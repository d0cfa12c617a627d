/**
 * The demo's data: the app's local tools (as JSON Schemas), and eleven scenarios, each a scripted model, the
 * capabilities profile the relay serves for it, and how the demo's client differs from a plain one (a model
 * without native tool calling; a `maxTools` smaller than the toolkit; Gemini's wire instead of the turns endpoint). `config` serves every scenario under
 * `/scenarios/<name>` (and "matches" at the root), so one relay backs the whole `toolgate demo`.
 *
 * @since 0.1.0
 */
import type { Script } from "@toolgate/providers"
import * as DemoTools from "./internal/demoTools.js"
import type * as Relay from "./Relay.js"

/** A local tool of the demo app: its name, what it does, and its parameter schema. */
export type LocalTool = DemoTools.LocalTool

/** The local tools of the demo app, as JSON Schemas (the CLI adds executors). */
export const localTools: ReadonlyArray<LocalTool> = [DemoTools.getWeather, DemoTools.locateUser]

/** The demo app's larger toolkit, by domain (eight tools, `localTools` among them), for the tool discovery scenario. */
export const domainTools: Readonly<Record<string, ReadonlyArray<LocalTool>>> = DemoTools.domainTools

/** What a scenario's turn should end with: committed, or the typed error it demonstrates. */
export type Expect = "committed" | "SchemaDriftError" | "ToolArgumentRepairExhausted" | "ProviderEventContractViolation"

/** How a scenario's client differs from a plain `CloudRelay` session over `localTools`. */
export interface Client {
  /** The provider declares `supportsToolCalling: false`: tools ride the system prompt, calls come back as `<tool_call>` text. */
  readonly textTools?: boolean
  /** The provider's `maxTools`, with `dynamicPerRequest` tool discovery over `domainTools` (the meta-tools first). */
  readonly maxTools?: number
  /** The session's sampling (the relay's model names it back through `{{sampling}}`). */
  readonly sampling?: { readonly temperature?: number; readonly topP?: number; readonly maxTokens?: number }
  /** The session speaks Gemini's wire: toolgate's `Gemini` provider for `model` at the scenario's `/v1beta` (no drift gate). */
  readonly gemini?: { readonly model: string }
  /** The app's tools instead of `localTools`. */
  readonly tools?: ReadonlyArray<LocalTool>
}

/** One demo scenario: what it shows, how a session runs it, what the relay serves for it. */
export interface Scenario {
  /** Url-safe: the relay serves it under `/scenarios/<name>`. */
  readonly name: string
  readonly title: string
  readonly mode: "cloudProfile" | "local"
  readonly executionModel: "appDriven" | "providerDriven"
  readonly toolChaining: boolean
  /** The user's text. */
  readonly prompt: string
  readonly expect: Expect
  /** The capabilities served for it (raw; "old-relay" has neither key). */
  readonly profile: unknown
  readonly script: Script.Script
  /** Absent: a plain session over `localTools`. */
  readonly client?: Client
}

/** The relay exports exactly the local schemas. */
const matchingProfile = {
  capabilities_version: "1.0",
  tool_schemas: Object.fromEntries(localTools.map((tool) => [tool.name, tool.parameters]))
}

/** The relay's get_weather drifted: `city` is no longer required and `units` gained "kelvin". */
const driftedProfile = {
  capabilities_version: "1.0",
  tool_schemas: {
    get_weather: {
      type: "object",
      properties: {
        city: { type: "string", minLength: 1 },
        units: { enum: ["metric", "imperial", "kelvin"] },
        days: { type: "integer", minimum: 1, maximum: 16 }
      },
      additionalProperties: false
    },
    locate_user: DemoTools.locateUser.parameters
  }
}

/** A call the model sends (app-driven). */
const call = (id: string, name: string, args: unknown) => ({ _tag: "ToolCallComplete" as const, id, name, arguments: args as never })
const text = (t: string) => ({ _tag: "TextDelta" as const, text: t })
const usage = (inputTokens: number, outputTokens: number) => ({ _tag: "Usage" as const, inputTokens, outputTokens })
const done = { _tag: "Done" as const }

/** A reply text carrying `<tool_call>` blocks, as a model without native tool calling writes them. */
const textCall = (before: string, name: string, args: unknown) =>
  text(`${before}<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`)

/** The forecast tool whose schema Google's dialect rewrites (the Gemini-wire scenario's only tool). */
export const forecastTool: LocalTool = DemoTools.getForecast

/**
 * The demo's scenarios, in order: the eight of the contracts, then text-routed tools and tool discovery, then
 * a provider dialect on Gemini's wire.
 */
export const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "matches",
    title: "Cloud profile matches: the gate proves every tool, a tool runs, the model answers",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What is the weather in Paris?",
    expect: "committed",
    profile: matchingProfile,
    script: {
      turns: [[
        [text("Let me check. "), call("call_1", "get_weather", { city: "Paris", units: "metric" }), usage(42, 12), done],
        [text("It is 18 °C and sunny in Paris."), usage(80, 11), done]
      ]]
    }
  },
  {
    name: "drift",
    title: "The relay's profile drifted: SchemaDriftError before any stream request",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What is the weather in Oslo?",
    expect: "SchemaDriftError",
    profile: driftedProfile,
    script: {
      turns: [[
        [call("call_1", "get_weather", { units: "kelvin" }), done],
        [text("This round must never be requested."), done]
      ]]
    }
  },
  {
    name: "old-relay",
    title: "An old relay (no schema export): a warning, the turn proceeds on layer 2",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What is the weather in Rome?",
    expect: "committed",
    profile: {},
    script: {
      turns: [[
        [call("call_1", "get_weather", { city: "Rome" }), usage(40, 9), done],
        [text("Rome: 24 °C, clear skies."), usage(75, 8), done]
      ]]
    }
  },
  {
    name: "near-miss",
    title: "A near-miss argument (\"15\" for an integer) is coerced and the tool runs",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "Give me the 15-day forecast for Berlin.",
    expect: "committed",
    profile: matchingProfile,
    script: {
      turns: [[
        [call("call_1", "get_weather", "{\"city\": \"Berlin\", \"days\": \"15\"}"), usage(44, 14), done],
        [text("Berlin for the next 15 days: mild, some rain."), usage(90, 12), done]
      ]]
    }
  },
  {
    name: "repair",
    title: "An invalid argument is fed back, the model repairs it, the tool runs",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What is the weather in Madrid, in kelvin?",
    expect: "committed",
    profile: matchingProfile,
    script: {
      turns: [[
        [call("call_1", "get_weather", { city: "Madrid", units: "kelvin" }), usage(45, 13), done],
        [text("Kelvin is not offered; using metric. "), call("call_2", "get_weather", { city: "Madrid", units: "metric" }), usage(95, 16), done],
        [text("Madrid: 27 °C (300 K), sunny."), usage(130, 10), done]
      ]]
    }
  },
  {
    name: "exhausted",
    title: "The model never repairs: ToolArgumentRepairExhausted, no tool ran, history rolled back",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What is the weather?",
    expect: "ToolArgumentRepairExhausted",
    profile: matchingProfile,
    script: {
      turns: [[
        [call("call_1", "get_weather", { town: "Lyon" }), usage(40, 10), done],
        [call("call_2", "get_weather", { town: "Lyon" }), usage(85, 10), done],
        [text("This round must never be requested."), done]
      ]]
    }
  },
  {
    name: "provider-contract",
    title: "A provider-driven stream breaks the lifecycle contract: ProviderEventContractViolation",
    mode: "local",
    executionModel: "providerDriven",
    toolChaining: false,
    prompt: "What is the weather in Vienna?",
    expect: "ProviderEventContractViolation",
    profile: matchingProfile,
    script: {
      turns: [[
        [
          text("Looking it up. "),
          { _tag: "ToolCallStarted", id: "call_1", name: "get_weather", arguments: { city: "Vienna" } },
          { _tag: "ToolCallStarted", id: "call_2", name: "get_weather", arguments: { city: "Graz" } },
          { _tag: "ToolCallCompleted", id: "call_2", result: { city: "Graz", temperature: 19 } },
          done
        ]
      ]]
    }
  },
  {
    name: "chaining",
    title: "Tool chaining: a second call takes {\"$tool\": \"call_1\", \"$path\": \"result.city\"}",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: true,
    prompt: "What is the weather where I am?",
    expect: "committed",
    profile: matchingProfile,
    script: {
      turns: [[
        [call("call_1", "locate_user", {}), usage(40, 8), done],
        [call("call_2", "get_weather", { city: { $tool: "call_1", $path: "result.city" } }), usage(70, 15), done],
        [text("You are in Lisbon: 21 °C and breezy."), usage(110, 10), done]
      ]]
    }
  },
  {
    name: "text-tools",
    title: "A model without native tool calling: <tool_call> text is parsed, repaired, coerced and run",
    mode: "cloudProfile",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What is the weather in Berlin for the next 3 days, in kelvin?",
    expect: "committed",
    profile: matchingProfile,
    client: { textTools: true, sampling: { temperature: 0.2 } },
    script: {
      turns: [[
        [textCall("Let me check. ", "get_weather", { city: "Berlin", units: "kelvin" }), usage(180, 20), done],
        [textCall("Kelvin is not offered; using metric. ", "get_weather", { city: "Berlin", units: "metric", days: "3" }), usage(240, 24), done],
        [text("Berlin for the next 3 days: 12 °C, light rain. (The relay's model was sampled with {{sampling}}; native tools: {{tools}}.)"), usage(300, 20), done]
      ]]
    }
  },
  {
    name: "discovery",
    title: "Eight tools, maxTools 4: the model lists the domains, activates one, and calls its tool",
    mode: "local",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What is the weather in Paris?",
    expect: "committed",
    profile: matchingProfile,
    client: { maxTools: 4 },
    script: {
      turns: [[
        [call("call_1", "toolgate_list_domains", {}), usage(60, 8), done],
        [call("call_2", "toolgate_activate_domain", { domain: "weather" }), usage(90, 10), done],
        [call("call_3", "get_weather", { city: "Paris" }), usage(120, 12), done],
        [text("It is 18 °C and sunny in Paris. (Offered this round: {{tools}}.)"), usage(150, 14), done]
      ]]
    }
  },
  {
    name: "gemini-dialect",
    title: "Gemini's wire: the schema goes out in Google's dialect, the arguments are checked against the original",
    mode: "local",
    executionModel: "appDriven",
    toolChaining: false,
    prompt: "What will the weather be in Paris for the next 20 days, in Fahrenheit?",
    expect: "committed",
    profile: { capabilities_version: "1.0", tool_schemas: { [forecastTool.name]: forecastTool.parameters } },
    client: { gemini: { model: "gemini-2.5-flash" }, tools: [forecastTool] },
    script: {
      turns: [[
        // the model names what the relay received; its 20 days passes that declaration (the bounds are only prose there), not the app's schema
        [text("Declared to me: {{functionDeclarations}}\n"), call("call_1", "get_forecast", { city: "Paris", days: 20, units: "imperial" }), usage(70, 14), done],
        [text("16 days is the most I can get. "), call("call_2", "get_forecast", { city: "Paris", days: "16", units: "imperial" }), usage(120, 18), done],
        [text("Paris for the next 16 days: 64 °F and sunny."), usage(170, 12), done]
      ]]
    }
  }
]

/** What the relay serves for one scenario. */
export interface Served {
  readonly profile: unknown
  readonly script: Script.Script
}

const first = scenarios[0]!

/** The relay config serving every scenario under /scenarios/<name> (and "matches" at the root). */
export const config: Relay.Config & { readonly scenarios: ReadonlyMap<string, Served> } = {
  profile: first.profile,
  script: first.script,
  scenarios: new Map(scenarios.map((s) => [s.name, { profile: s.profile, script: s.script }]))
}
