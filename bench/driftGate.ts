/**
 * The drift gate as a session sees it: a 50-tool profile served by a `node:http` relay on loopback,
 * checked through `RelayProfileClient` (real HTTP, `fetch`) and `DriftGate`. Cold = a new layer and new content
 * (nothing cached: the probe, Ajv compilation for witnesses and every proof included); warm = the same
 * layer again (probe and verdicts cached). Then 1,000 concurrent first sends on a new layer: one probe.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { JsonSchema } from "@toolgate/json-schema"
import { RelayProfileClient } from "@toolgate/providers"
import { DriftGate } from "@toolgate/runtime"
import { Effect, Layer, ManagedRuntime } from "effect"
import { readFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { join, resolve } from "node:path"
import { median } from "./harness.js"

const corpus = resolve(import.meta.dirname, "../corpus")

type Obj = Record<string, unknown>
interface Tool { readonly name: string; readonly local: JsonSchema.JsonSchema; readonly cloud: Obj }

/** 50 corpus tools with distinct names: the upgraded local schema and a narrowed cloud copy (the everyday, proven case). */
const profileTools = (): Array<Tool> => {
  const tools = new Map<string, Tool>()
  for (const line of readFileSync(join(corpus, "tools.jsonl"), "utf8").split("\n")) {
    if (tools.size === 50) break
    if (line.trim() === "") continue
    const raw = JSON.parse(line) as { name: string; parameters: unknown }
    const local = JsonSchema.upgrade(raw.parameters).schema
    if (typeof local !== "object" || typeof local["properties"] !== "object" || tools.has(raw.name)) continue
    const names = Object.keys(local["properties"] as Obj)
    const cloud = { ...(JSON.parse(JSON.stringify(local)) as Obj), required: names, additionalProperties: false }
    tools.set(raw.name, { name: raw.name, local, cloud })
  }
  return [...tools.values()]
}

/** A profile made new by a nonce in every description, so no verdict or validator is cached for it. */
const fresh = (tools: ReadonlyArray<Tool>, nonce: number): Array<Tool> =>
  tools.map((t) => ({
    name: t.name,
    local: { ...(t.local as Obj), description: `profile ${nonce}` } as JsonSchema.JsonSchema,
    cloud: { ...t.cloud, description: `profile ${nonce}` }
  }))

/** A loopback relay serving whatever `body()` returns; counts requests. */
const relay = async (body: () => string) => {
  let requests = 0
  const server = http.createServer((_req, res) => {
    requests++
    res.writeHead(200, { "content-type": "application/json" })
    res.end(body())
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    requests: () => requests,
    close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()) })
  }
}

/** A new gate layer (its own probe cache and verdict cache) against `url`. */
const runtimeFor = (url: string) =>
  ManagedRuntime.make(DriftGate.layer.pipe(
    Layer.provide(RelayProfileClient.layerWith({ baseUrl: url, timeToLive: "1 hour" })),
    Layer.provide(FetchHttpClient.layer)
  ))

const toolkitOf = (tools: ReadonlyArray<Tool>): DriftGate.Checkable => ({
  tools: new Map(tools.map((t) => [t.name, { name: t.name, jsonSchema: t.local }]))
})

const check = (toolkit: DriftGate.Checkable) =>
  Effect.flatMap(DriftGate.DriftGate, (gate) => gate.check(toolkit))

const line = (name: string, ns: number, target: number): boolean => {
  const ok = ns <= target
  console.log(`  ${ok ? "✔" : "✘"} ${name.padEnd(52)} ${(ns / 1e6).toFixed(3).padStart(8)} ms  (target ≤ ${target / 1e6} ms)`)
  return ok
}

/** Runs the suite; resolves to its results and whether its targets were met. */
export const run = async () => {
  const base = profileTools()
  let current = base
  const server = await relay(() =>
    JSON.stringify({ capabilities_version: "1.0", tool_schemas: Object.fromEntries(current.map((t) => [t.name, t.cloud])) })
  )
  console.log(`\nDriftGate.check: a ${base.length}-tool corpus profile over loopback HTTP (median of 5 fresh layers)`)
  const colds: Array<number> = [], warms: Array<number> = []
  try {
    for (let round = 0; round < 5; round++) {
      current = fresh(base, Date.now() + round)
      const toolkit = toolkitOf(current)
      const runtime = runtimeFor(server.url)
      await runtime.runPromise(Effect.void)
      let start = performance.now()
      const verdict = await runtime.runPromise(check(toolkit))
      colds.push((performance.now() - start) * 1e6)
      if (verdict._tag !== "Proven" || verdict.tools.length !== base.length) throw new Error(`unexpected verdict ${verdict._tag}`)
      const times: Array<number> = []
      for (let i = 0; i < 200; i++) {
        start = performance.now()
        await runtime.runPromise(check(toolkit))
        times.push((performance.now() - start) * 1e6)
      }
      warms.push(median(times))
      await runtime.dispose()
    }
    const cold = median(colds), warm = median(warms)
    let met = line(`${base.length}-tool profile, cold (probe + proofs)`, cold, 50e6)
    met = line(`${base.length}-tool profile, warm (cached probe + verdicts)`, warm, 1e6) && met
    // 1,000 concurrent first sends on a new layer: they must share one probe.
    current = fresh(base, Date.now() + 99)
    const before = server.requests()
    const runtime = runtimeFor(server.url)
    await runtime.runPromise(Effect.void)
    const toolkit = toolkitOf(current)
    const start = performance.now()
    await runtime.runPromise(Effect.all(Array.from({ length: 1_000 }, () => check(toolkit)), { concurrency: "unbounded" }))
    const burst = (performance.now() - start) * 1e6
    await runtime.dispose()
    const probes = server.requests() - before
    const single = probes === 1
    met &&= single
    console.log(`  ${single ? "✔" : "✘"} 1,000 concurrent first sends: ${probes} probe${probes === 1 ? "" : "s"} in ${(burst / 1e6).toFixed(1)} ms (target: 1 probe)`)
    return {
      met,
      results: [
        { suite: "DriftGate", name: "50-tool profile cold (HTTP probe included)", nsPerOp: cold, baseline: "absolute", ratio: cold / 50e6 },
        { suite: "DriftGate", name: "50-tool profile warm", nsPerOp: warm, baseline: "absolute", ratio: warm / 1e6 },
        { suite: "DriftGate", name: "1,000 concurrent first sends (total)", nsPerOp: burst, baseline: "probe count (1 expected)", ratio: probes }
      ]
    }
  } finally {
    await server.close()
  }
}
