/**
 * The proxy's upstream: one MCP client connection to the server it fronts, over stdio (a child process) or
 * Streamable HTTP, with the capabilities a downstream client may need forwarded (sampling, elicitation, roots).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"

/** Where the upstream server is. */
export type Target =
  | {
    readonly _tag: "Stdio"
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env?: Readonly<Record<string, string>> | undefined
    readonly cwd?: string | undefined
  }
  | { readonly _tag: "Http"; readonly url: string }

/** A connected upstream. */
export interface Upstream {
  readonly client: Client
  /** The server in words, for messages: `` `node server.js` `` or the URL. */
  readonly name: string
  /** Why the connection ended, once it has; `undefined` while it is open. */
  readonly ended: () => string | undefined
  readonly close: () => Promise<void>
}

/** The target in words. */
export const describe = (target: Target): string =>
  target._tag === "Http" ? target.url : [target.command, ...target.args].join(" ")

const transportOf = (target: Target): Transport =>
  target._tag === "Http"
    ? new StreamableHTTPClientTransport(new URL(target.url))
    : new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      ...(target.env === undefined ? {} : { env: { ...target.env } }),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      stderr: "inherit"
    })

/** What the proxy's upstream client declares: whatever a downstream client may be asked is passed through. */
export const capabilities: ClientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } }

/** Connects (initialize handshake included) within `timeoutMillis`; rejects with the reason it could not. */
export const connect = async (
  target: Target,
  timeoutMillis: number
): Promise<Upstream> => {
  const client = new Client({ name: "toolgate-mcp-proxy", version: "0.1.0" }, { capabilities })
  const transport = transportOf(target)
  let ended: string | undefined
  let lastError: string | undefined
  client.onerror = (error) => {
    lastError = error.message
  }
  client.onclose = () => {
    ended = lastError === undefined ? "the connection closed" : `the connection closed (${lastError})`
  }
  await client.connect(transport, { timeout: timeoutMillis })
  return {
    client,
    name: describe(target),
    ended: () => ended,
    close: () => client.close()
  }
}
