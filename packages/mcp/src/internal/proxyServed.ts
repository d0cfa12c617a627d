/**
 * What a proxy session serves of its upstream: the capabilities it declares, the requests it relays as they are,
 * and what the upstream's requests to the client need.
 */
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js"

/** The proxy's name and version: its identity to its clients (`initialize`, `server/discover`) and to the upstream. */
export const identity = { name: "toolgate-mcp-proxy", version: "0.1.0" }

/** The capabilities a session declares: tools (their list may change) and the upstream's others it relays. */
export const capabilitiesOf = (declared: ServerCapabilities): ServerCapabilities => {
  const { completions, logging, prompts, resources } = declared
  return {
    tools: { listChanged: true },
    ...(completions === undefined ? {} : { completions }),
    ...(logging === undefined ? {} : { logging }),
    ...(prompts === undefined ? {} : { prompts }),
    ...(resources === undefined ? {} : { resources })
  }
}

/** The requests relayed to the upstream as they are: those of the capabilities it declared. */
export const relayedMethods = (capabilities: ServerCapabilities): ReadonlySet<string> =>
  new Set([
    ...(capabilities.resources === undefined ? [] : ["resources/list", "resources/templates/list", "resources/read"]),
    ...(capabilities.resources?.subscribe === true ? ["resources/subscribe", "resources/unsubscribe"] : []),
    ...(capabilities.prompts === undefined ? [] : ["prompts/list", "prompts/get"]),
    ...(capabilities.completions === undefined ? [] : ["completion/complete"]),
    ...(capabilities.logging === undefined ? [] : ["logging/setLevel"])
  ])

/** The client capability each of the upstream's requests to the client needs. */
export const needs: Record<string, string> = { "sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots" }

/** The methods a client session may send that the stateless revision has no more. */
export const sessionOnly = new Set(["resources/subscribe", "resources/unsubscribe", "logging/setLevel"])
