/**
 * What each stream request of a demo scenario offered the model: its native tools, or (a text-routed
 * provider) the tools its system prompt lists. The discovery and text-routed scenarios show it in their
 * trace, one note after each round, and their checks read it (no request over `maxTools`; no native tools).
 *
 * @internal
 */
import type { Provider } from "@toolgate/runtime"
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
  const wrapped: Provider.AgentProvider = {
    ...provider,
    stream: (request) =>
      Stream.suspend(() => {
        offered.push({ tools: request.tools.map((t) => t.name), promptTools: promptTools(request.systemPrompt) })
        return provider.stream(request)
      })
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
