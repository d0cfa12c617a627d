/**
 * The relay's own overhead: its capabilities and turns endpoints (`Relay.start` on
 * loopback: `@effect/platform-node` server, router, request log (silenced), body decoding, `Script.select`,
 * SSE encoding) against a bare `node:http` server answering the same bytes: the same status, headers (but
 * the per-connection ones) and body, recorded from the relay before timing and checked equal; the bare
 * server reads the request body but decodes nothing. Both are driven by the same keep-alive `node:http`
 * client in this process, 8 requests in flight, in interleaved rounds (`timeCpu`: this process's CPU time
 * per request, wall time and throughput beside it); the client's own cost is in both figures, so the ratio
 * understates the server-side difference. No target: a line to watch.
 */
import type { Script } from "@toolgate/providers"
import { Relay } from "@toolgate/relay"
import { Effect, Exit, Logger, LogLevel, Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { printWall, report, type Result, timeCpu } from "./harness.js"

const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5)
const inFlight = 8
const perBatch = 64

const profile = {
  capabilities_version: "1.0",
  tool_schemas: {
    get_weather: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 14 } },
      required: ["city", "days"],
      additionalProperties: false
    }
  }
}

const script: Script.Script = {
  turns: [[
    [{ _tag: "ToolCallComplete", id: "call_1", name: "get_weather", arguments: { city: "Paris", days: 3 } }, { _tag: "Done" }],
    [{ _tag: "TextDelta", text: "It is sunny in Paris." }, { _tag: "Usage", inputTokens: 20, outputTokens: 6 }, { _tag: "Done" }]
  ]]
}

interface Endpoint { readonly name: string; readonly method: "GET" | "POST"; readonly path: string; readonly body?: string }
const endpoints: ReadonlyArray<Endpoint> = [
  { name: "capabilities", method: "GET", path: "/v1/agent/capabilities" },
  {
    name: "turns",
    method: "POST",
    path: "/v1/agent/turns",
    body: JSON.stringify({ messages: [{ _tag: "User", text: "Weather in Paris?" }], tools: ["get_weather"], toolChoice: "auto" })
  }
]

interface Answer {
  readonly status: number
  readonly contentType: string
  /** The response headers a bare server repeats (not those of the connection: date, keep-alive, framing). */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
}

const perConnection = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"])
const kept = (headers: http.IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([k, v]) => !perConnection.has(k) && typeof v === "string") as Array<[string, string]>)

const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight })

/** One request on a kept-alive connection; resolves once the whole body is read. */
const request = (port: number, endpoint: Endpoint): Promise<Answer> =>
  new Promise((done, fail) => {
    const req = http.request({ host: "127.0.0.1", port, method: endpoint.method, path: endpoint.path, agent }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        done({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"]), headers: kept(res.headers), body: Buffer.concat(chunks) }))
      res.on("error", fail)
    })
    req.on("error", fail)
    if (endpoint.body !== undefined) req.setHeader("content-type", "application/json")
    req.end(endpoint.body)
  })

/** `count` requests, `inFlight` at a time. */
const batch = async (port: number, endpoint: Endpoint, count: number) => {
  let left = count
  const worker = async () => {
    while (left-- > 0) {
      const answer = await request(port, endpoint)
      if (answer.status !== 200) throw new Error(`${endpoint.path}: HTTP ${answer.status}`)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
}

/** A bare server answering each path with the bytes the relay gave (after reading the request body). */
const bare = async (answers: ReadonlyMap<string, Answer>) => {
  const server = http.createServer((req, res) => {
    req.on("data", () => {})
    req.on("end", () => {
      const answer = answers.get(req.url ?? "")
      if (answer === undefined) {
        res.writeHead(404).end()
        return
      }
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()) })
  }
}

/** Runs the suite; resolves to its results (no target: `met` is true). */
export const run = async (): Promise<{ readonly results: ReadonlyArray<Result>; readonly met: boolean }> => {
  const scope = Effect.runSync(Scope.make())
  // The relay logs a line per request: silenced (its fibers inherit the level), so the log costs a check, not I/O.
  const { url } = await Effect.runPromise(Relay.start({ profile, script }).pipe(Scope.extend(scope), Logger.withMinimumLogLevel(LogLevel.None)))
  const relayPort = Number(new URL(url).port)
  const answers = new Map<string, Answer>()
  for (const e of endpoints) answers.set(e.path, await request(relayPort, e))
  const plain = await bare(answers)
  try {
    for (const e of endpoints) {
      const [fromRelay, fromBare] = [await request(relayPort, e), await request(plain.port, e)]
      const same = fromRelay.status === 200 && fromRelay.status === fromBare.status &&
        JSON.stringify(fromRelay.headers) === JSON.stringify(fromBare.headers) && fromRelay.body.equals(fromBare.body) && fromRelay.body.equals(answers.get(e.path)!.body)
      if (!same) throw new Error(`relay bench: ${e.path} answers differ (relay ${fromRelay.status} ${fromRelay.contentType}, bare ${fromBare.status} ${fromBare.contentType})`)
    }
    console.log(`\nrelay: Relay.start vs a bare node:http server answering the same bytes, ${inFlight} requests in flight, keep-alive client in this process`)
    const results: Array<Result> = []
    const candidatesOf = (e: Endpoint) => [
      { name: `bare node:http ${e.name}`, ops: perBatch, run: () => batch(plain.port, e, perBatch) },
      { name: `relay ${e.name}`, ops: perBatch, run: () => batch(relayPort, e, perBatch) }
    ]
    // Warm every candidate of every endpoint first, interleaved: connections open, code compiled.
    for (let pass = 0; pass < 2; pass++) {
      for (const c of endpoints.flatMap(candidatesOf)) {
        const end = performance.now() + 400
        while (performance.now() < end) await c.run()
      }
    }
    for (const e of endpoints) {
      const body = answers.get(e.path)!
      const measured = await timeCpu(candidatesOf(e), rounds)
      const title = `relay: ${e.method} ${e.path} (${body.body.length} bytes of ${body.contentType}), CPU time per request (client + server)`
      const outcome = report(title, measured.cpu, `bare node:http ${e.name}`, [])
      printWall(measured.wall, `bare node:http ${e.name}`)
      for (const [name, ns] of measured.wall) console.log(`  ${`${name}, throughput`.padEnd(44)} ${(1e9 / ns).toFixed(0).padStart(9)} requests/s (wall)`)
      results.push(...outcome.results.map((r) => ({ ...r, suite: "relay", name: `${r.name} (CPU)` })))
    }
    return { results, met: true }
  } finally {
    agent.destroy()
    await plain.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
