/**
 * The SDK client both the connection and the proxy's upstream are built on (`@modelcontextprotocol/client`), and
 * how it connects in each protocol mode: `auto` probes with `server/discover` and falls back to `initialize`,
 * `legacy` sends `initialize` only, `modern` speaks revision 2026-07-28 only. Tool results are never checked
 * against an output schema by the SDK: requests go through its raw path with a schema that passes the answer
 * on, and its JSON Schema validator accepts everything, so toolgate's dialect-aware checks are the only ones.
 */
import {
  Client,
  type ClientCapabilities,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  type Transport,
  type VersionNegotiationOptions
} from "@modelcontextprotocol/client"
import * as Schema from "effect/Schema"
import { SpawnedOnce } from "./transport.js"

/**
 * Which revisions of MCP the client speaks: `auto` (probe with `server/discover`, fall back to `initialize` as
 * the specification says), `legacy` (`initialize` only, revisions up to 2025-11-25), `modern` (2026-07-28 only).
 */
export const Protocol = Schema.Literal("auto", "legacy", "modern")

/** Which revisions of MCP the client speaks. */
export type Protocol = typeof Protocol.Type

/** The modern revision `modern` pins. */
export const modernRevision = "2026-07-28"

const negotiation = (protocol: Protocol): VersionNegotiationOptions =>
  protocol === "auto" ? { mode: "auto" } : protocol === "legacy" ? { mode: "legacy" } : { mode: { pin: modernRevision } }

/** A validator that accepts every value: the SDK never judges a tool's output, toolgate does. */
const acceptAll: jsonSchemaValidator = {
  getValidator: <T>(): JsonSchemaValidator<T> => (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined })
}

/** A Standard Schema that passes any answer on as it came, for the SDK's raw request path. */
export const asSent: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "toolgate", validate: (value: unknown) => ({ value }) }
}

/** A client exposing the `_meta` envelope it puts on every request once it speaks the modern revision. */
export class EnvelopedClient extends Client {
  /** The reserved `_meta` keys (protocol version, client info and capabilities); `undefined` on the older revisions. */
  envelope(): Readonly<Record<string, unknown>> | undefined {
    return this._outboundMetaEnvelope()
  }
}

/** A client introducing itself as `info`, declaring `capabilities`, speaking `protocol`. */
export const make = (
  info: { readonly name: string; readonly version: string },
  capabilities: ClientCapabilities,
  protocol: Protocol
): EnvelopedClient =>
  new EnvelopedClient({ ...info }, { capabilities, versionNegotiation: negotiation(protocol), jsonSchemaValidator: acceptAll })

/**
 * Connects a client made by `client` over a transport made by `transport`. In `auto` on stdio, a server that
 * ends its process on the probe (servers built on SDKs that stop at any request before `initialize` do) is
 * started again and spoken to with `initialize` alone: only such a server starts twice. Returns the connected
 * client, or rejects with what the SDK threw.
 */
export const connect = async <C extends Client>(
  client: () => C,
  transport: () => Transport,
  protocol: Protocol,
  options: { readonly timeout: number; readonly signal?: AbortSignal }
): Promise<C> => {
  const first = client()
  const pipe = transport()
  try {
    await first.connect(pipe, options)
    return first
  } catch (e) {
    const endedOnProbe = protocol === "auto" && pipe instanceof SpawnedOnce && e instanceof SdkError &&
      e.code === SdkErrorCode.EraNegotiationFailed
    if (!endedOnProbe) {
      await first.close().catch(() => undefined)
      throw e
    }
  }
  // the second client is made before the first is closed, so what closing the first reports is the first's
  const second = client()
  await first.close().catch(() => undefined)
  try {
    await second.connect(transport(), { ...options, prior: { kind: "legacy" } })
    return second
  } catch (e) {
    await second.close().catch(() => undefined)
    throw e
  }
}

/**
 * On the stateless revision a server's notifications come on a `subscriptions/listen` stream: when the server
 * says its tool list changes, one is opened for `notifications/tools/list_changed` (the SDK hands them to the
 * client's notification handlers, as the older revisions' unsolicited ones). Nothing to open on the older ones.
 * Answers whether the server's list changes will be heard.
 */
export const listenForToolChanges = async (client: Client, timeout: number, signal?: AbortSignal): Promise<boolean> => {
  if (client.getServerCapabilities()?.tools?.listChanged !== true) return false
  if (client.getProtocolEra() !== "modern") return true
  await client.listen({ toolsListChanged: true }, { timeout, ...(signal === undefined ? {} : { signal }) })
  return true
}
