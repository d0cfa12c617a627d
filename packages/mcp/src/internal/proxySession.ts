/**
 * One downstream session of the proxy: an MCP `Server` whose requests go to one upstream client. `tools/list`
 * is forwarded (normalized per dialect when asked), `tools/call` goes through `proxyCall`, every other request
 * the upstream declared is forwarded as it is, and notifications and server-to-client requests flow back.
 */
import { Normalize } from "@toolgate/json-schema"
import type { JsonSchema } from "@toolgate/json-schema"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CompleteResultSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  EmptyResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  ListToolsResultSchema,
  McpError,
  ProgressNotificationSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  ReadResourceResultSchema,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Answer from "./proxyAnswer.js"
import * as ProxyCall from "./proxyCall.js"
import type { Upstream } from "./proxyUpstream.js"

/** The schema dialects `tools/list` may be answered in. */
export type Dialect = "openai-strict" | "google" | "cca" | "mcp" | "none"

/** What a session needs from the proxy. */
export interface Settings extends ProxyCall.Settings {
  readonly dialect: Dialect
  /** At most this many tools are read from the upstream's listing (pages followed until then). */
  readonly maxTools: number
}

const inDialect = (dialect: Dialect, schema: JsonSchema.JsonSchema): JsonSchema.JsonSchema => {
  switch (dialect) {
    case "openai-strict":
      return Normalize.openAiStrict(schema).schema
    case "google":
      return Normalize.google(schema).schema
    case "cca":
      return Normalize.cca(schema).schema
    case "mcp":
      return Normalize.mcp(schema).schema
    case "none":
      return schema
  }
}

const capabilitiesOf = (upstream: Upstream): ServerCapabilities => {
  const declared = upstream.client.getServerCapabilities() ?? {}
  const { completions, logging, prompts, resources } = declared
  return {
    tools: { listChanged: true },
    ...(completions === undefined ? {} : { completions }),
    ...(logging === undefined ? {} : { logging }),
    ...(prompts === undefined ? {} : { prompts }),
    ...(resources === undefined ? {} : { resources })
  }
}

/** A server for one downstream client over `upstream`; connect it to a transport. */
export const make = (upstream: Upstream, settings: Settings): Server => {
  const capabilities = capabilitiesOf(upstream)
  const instructions = upstream.client.getInstructions()
  const server = new Server(
    { name: "toolgate-mcp-proxy", version: "0.1.0" },
    { capabilities, ...(instructions === undefined ? {} : { instructions }) }
  )
  const client = upstream.client
  const tools = new Map<string, Tool>()
  const routes: ProxyCall.ProgressRoutes = new Map()
  const timeout = settings.callTimeoutMillis

  const remember = (listed: ListToolsResult) => {
    for (const tool of listed.tools) if (tools.size < settings.maxTools || tools.has(tool.name)) tools.set(tool.name, tool)
  }
  const toolNamed = async (name: string): Promise<Tool | undefined> => {
    const known = tools.get(name)
    if (known !== undefined) return known
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout })
      remember(page)
      cursor = page.nextCursor
    } while (cursor !== undefined && tools.size < settings.maxTools && !tools.has(name))
    return tools.get(name)
  }

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const listed = await client.request({ method: "tools/list", params: request.params }, ListToolsResultSchema, {
      timeout,
      signal: extra.signal
    }).catch((e) => {
      throw Answer.passThrough(e)
    })
    remember(listed)
    if (settings.dialect === "none") return listed
    return {
      ...listed,
      tools: listed.tools.map((tool) => ({
        ...tool,
        inputSchema: inDialect(settings.dialect, tool.inputSchema as JsonSchema.JsonSchema) as Tool["inputSchema"]
      }))
    }
  })
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = await toolNamed(request.params.name)
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    return ProxyCall.call(upstream, tool, request.params, extra, settings, routes)
  })

  const forward = <S extends Parameters<typeof server.setRequestHandler>[0]>(
    schema: S,
    result: Parameters<typeof client.request>[1]
  ) =>
    server.setRequestHandler(schema, (request, extra) =>
      client.request(request as never, result, { timeout, signal: extra.signal }).catch((e) => {
        throw Answer.passThrough(e)
      }) as never
    )
  if (capabilities.resources !== undefined) {
    forward(ListResourcesRequestSchema, ListResourcesResultSchema)
    forward(ListResourceTemplatesRequestSchema, ListResourceTemplatesResultSchema)
    forward(ReadResourceRequestSchema, ReadResourceResultSchema)
    if (capabilities.resources.subscribe === true) {
      forward(SubscribeRequestSchema, EmptyResultSchema)
      forward(UnsubscribeRequestSchema, EmptyResultSchema)
    }
  }
  if (capabilities.prompts !== undefined) {
    forward(ListPromptsRequestSchema, ListPromptsResultSchema)
    forward(GetPromptRequestSchema, GetPromptResultSchema)
  }
  if (capabilities.completions !== undefined) forward(CompleteRequestSchema, CompleteResultSchema)
  if (capabilities.logging !== undefined) forward(SetLevelRequestSchema, EmptyResultSchema)

  // the upstream's notifications and requests to its client go to this session's client
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === "notifications/tools/list_changed") tools.clear()
    await server.notification(notification as never).catch(() => undefined)
  }
  // progress of a call goes to the request that asked for it; any other progress to the client as it is
  client.setNotificationHandler(ProgressNotificationSchema, async (notification) => {
    const route = routes.get(notification.params.progressToken)
    if (route !== undefined) return route(notification.params)
    await server.notification(notification).catch(() => undefined)
  })
  const back = <R>(answer: Promise<R>) =>
    answer.catch((e) => {
      throw Answer.passThrough(e)
    })
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    back(server.request(request, CreateMessageResultSchema, { signal: extra.signal })))
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => back(server.request(request, ElicitResultSchema, { signal: extra.signal })))
  client.setRequestHandler(ListRootsRequestSchema, (request, extra) =>
    back(server.request(request, ListRootsResultSchema, { signal: extra.signal })))
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => client.sendRootsListChanged())
  return server
}
