/**
 * Servers of MCP's stateless revision (2026-07-28) for the tests, built with `@modelcontextprotocol/server` 2.4:
 * one factory served over Streamable HTTP on loopback (`createMcpHandler`, dual-era or modern-only) or over stdio
 * (`fixtures/statelessStdio.ts`), and hand-written HTTP servers that answer the `server/discover` probe badly.
 */
import { createMcpHandler, Server } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { tsx } from "./support.js"

const draft07 = "http://json-schema.org/draft-07/schema#"

/** A draft-07 output schema a 2020-12 validator cannot compile (`definitions`, a `$ref` into them, a tuple `items`). */
export const forecastOutput = {
  $schema: draft07,
  type: "object" as const,
  definitions: { day: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false } },
  properties: { city: { type: "string" }, days: { type: "array", items: { $ref: "#/definitions/day" } } },
  required: ["city", "days"]
}

const tools = [
  {
    name: "get_weather",
    description: "The forecast for a city.",
    inputSchema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] }
  },
  {
    name: "get_forecast",
    description: "The forecast for a city, day by day.",
    inputSchema: { $schema: draft07, type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
    outputSchema: forecastOutput
  },
  {
    name: "liar",
    description: "Answers what its output schema does not allow.",
    inputSchema: { $schema: draft07, type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
    outputSchema: forecastOutput
  }
]

/** The toolgate keys of a request's `_meta` (the revision's own envelope keys left out). */
const ours = (meta: Record<string, unknown> | undefined) =>
  Object.fromEntries(Object.entries(meta ?? {}).filter(([key]) => key.startsWith("dev.toolgate/")))

/**
 * A server with three tools, listed as public for a minute: `get_weather` (its arguments and toolgate `_meta` as
 * structured content), `get_forecast` (draft-07 structured content that fits its output schema) and `liar` (that
 * does not). With `changes`, it says its tool list changed after the first listing.
 */
export const statelessServer = (changes = false) => {
  const server = new Server({ name: "stateless-fixture", version: "2.0.0" }, {
    capabilities: { tools: { listChanged: true } },
    cacheHints: { "tools/list": { ttlMs: 60_000, cacheScope: "public" } }
  })
  let listings = 0
  server.setRequestHandler("tools/list", () => {
    if (changes && listings++ === 0) setTimeout(() => void server.sendToolListChanged(), 20)
    return { tools }
  })
  server.setRequestHandler("tools/call", (request) => {
    const city = String(request.params.arguments?.city)
    switch (request.params.name) {
      case "get_forecast":
        return { content: [], structuredContent: { city, days: [["mon", 21], ["tue", 19]] } }
      case "liar":
        return { content: [], structuredContent: { city, days: [[1, "mon"]] } }
      default:
        return {
          content: [{ type: "text", text: `Sunny in ${city}` }],
          structuredContent: { args: request.params.arguments ?? {}, meta: ours(request.params._meta) }
        }
    }
  })
  return server
}

/** Node's HTTP server answering with a fetch-style handler, responses streamed (a `subscriptions/listen` stream stays open). */
export const listen = (fetch: (request: Request) => Promise<Response>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly server: http.Server }>((resume) => {
      const server = http.createServer(async (req, res) => {
        const chunks: Array<Buffer> = []
        for await (const chunk of req) chunks.push(chunk as Buffer)
        const headers = new Headers()
        for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value)
        const hasBody = req.method !== "GET" && req.method !== "HEAD"
        const response = await fetch(new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, ...(hasBody ? { body: Buffer.concat(chunks) } : {}) }))
        res.writeHead(response.status, Object.fromEntries(response.headers))
        if (response.body === null) return void res.end()
        Readable.fromWeb(response.body as import("node:stream/web").ReadableStream).pipe(res)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server })))
    }),
    ({ server }) =>
      Effect.promise(async () => {
        server.closeAllConnections()
        await new Promise((done) => server.close(done))
      })
  )

/** The stateless server over Streamable HTTP on loopback: dual-era (`stateless`) or modern-only (`reject`). */
export const serveHttp = (legacy: "stateless" | "reject") =>
  Effect.gen(function*() {
    const handler = yield* Effect.acquireRelease(
      Effect.sync(() => createMcpHandler(() => statelessServer(), { legacy })),
      (handler) => Effect.promise(() => handler.close())
    )
    return yield* listen((request) => handler.fetch(request))
  })

/** The stateless server over stdio, modern-only unless `legacy` is `serve`; with `changes`, its tool list changes after the first listing. */
export const stdio = (legacy: "serve" | "reject", changes = false) => ({
  _tag: "Stdio" as const,
  command: process.execPath,
  args: ["--import", tsx, path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "statelessStdio.ts")],
  env: { PATH: process.env.PATH ?? "", TOOLGATE_FIXTURE_LEGACY: legacy, ...(changes ? { TOOLGATE_FIXTURE_CHANGES: "1" } : {}) }
})

/**
 * A hand-written HTTP endpoint whose answer to every POST is `answer` (a status and a body; `undefined` never
 * answers), so a client's probe meets it.
 */
export const hostile = (answer: { readonly status: number; readonly body: string } | undefined) =>
  listen(() =>
    answer === undefined
      ? new Promise<Response>(() => {})
      : Promise.resolve(new Response(answer.body, { status: answer.status, headers: { "content-type": "application/json" } }))
  )
