import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { root, toolgateAsync as toolgate } from "./toolgate.js"

const weather = { type: "object", properties: { city: { type: "string" }, days: { type: "integer", maximum: 14 } }, required: ["city"] }
const search = { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false }
const local = { get_weather: weather, search }
const caps = (tools: object, version = "1.0") => ({ capabilities_version: version, tool_schemas: tools })

let dir = ""
const file = (name: string, content: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content))
  return path
}
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-check-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("toolgate check --capabilities (the process)", () => {
  it("exits 0 when every exported tool is proven, naming each", async () => {
    const narrower = { ...search, properties: { q: { type: "string", maxLength: 100 } } }
    const run = await toolgate("check", "--tools", file("tools.json", local), "--capabilities", file("ok.json", caps({ get_weather: weather, search: narrower })))
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/✔ get_weather\s+proven/)
    expect(run.stdout).toMatch(/✔ search\s+proven/)
    expect(run.stdout).toContain("2 proven, 0 drifted, 0 unsupported")
  })

  it("exits 1 for drift (with the witness) and for a tool the app cannot execute; --json says the same", async () => {
    const wider = { ...weather, properties: { ...weather.properties, days: { type: "integer", maximum: 30 } } }
    const capsFile = file("drift.json", caps({ get_weather: wider, search, delete_all: { type: "object" } }))
    const run = await toolgate("check", "--tools", file("tools.json", local), "--capabilities", capsFile)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain("witness")
    expect(run.stdout).toContain('"days":30')
    expect(run.stdout).toMatch(/✘ delete_all\s+unknown tool/)
    const json = await toolgate("check", "--tools", file("tools.json", local), "--capabilities", capsFile, "--json")
    expect(json.code).toBe(1)
    const report = JSON.parse(json.stdout)
    expect(report.exitCode).toBe(1)
    expect(report.rows.map((r: { verdict: string }) => r.verdict)).toEqual(["drift", "proven", "unknown_tool"])
    expect(report.rows[0].witness.days).toBe(30)
  })

  it("exits 2 for a construct it cannot prove and for a broken or too-new envelope; 3 for a relay that predates the export", async () => {
    const pattern = { type: "object", properties: { q: { type: "string", pattern: "^(?!b)" } }, required: ["q"] }
    const tools = file("pattern-tools.json", { search: pattern })
    expect((await toolgate("check", "--tools", tools, "--capabilities", file("p.json", caps({ search: { ...pattern, properties: { q: { type: "string", pattern: "^a" } } } })))).code).toBe(2)
    const newer = await toolgate("check", "--tools", tools, "--capabilities", file("v2.json", caps({}, "2.0")))
    expect(newer.code).toBe(2)
    expect(newer.stdout).toContain("unsupported_version")
    expect((await toolgate("check", "--tools", tools, "--capabilities", file("half.json", { capabilities_version: "1.0" }))).code).toBe(2)
    const old = await toolgate("check", "--tools", tools, "--capabilities", file("old.json", { documents: true }))
    expect(old.code).toBe(3)
    expect(old.stdout).toContain("predates")
  })

  it("reads an MCP tools/list result, bare or as a JSON-RPC response, and keeps a tool named __proto__", async () => {
    const list = { tools: [{ name: "search", inputSchema: search }, { name: "__proto__", inputSchema: { type: "object" } }] }
    const exported = file("proto-caps.json", `{"capabilities_version":"1.1","tool_schemas":{"search":${JSON.stringify(search)},"__proto__":{"type":"object","properties":{}}}}`)
    expect((await toolgate("check", "--tools", file("mcp.json", list), "--capabilities", exported)).code).toBe(0)
    const rpc = await toolgate("check", "--tools", file("rpc.json", { jsonrpc: "2.0", id: 1, result: list }), "--capabilities", exported, "--json")
    expect(rpc.code).toBe(0)
    expect(JSON.parse(rpc.stdout).rows.map((r: { tool: string }) => r.tool)).toEqual(["search", "__proto__"])
    expect(({} as Record<string, unknown>).type).toBeUndefined()
  })

  it("proves 200 real corpus tools against themselves", async () => {
    const corpus = resolve(root, "corpus")
    const lines = readFileSync(join(corpus, "tools.jsonl"), "utf8").split("\n").filter((l) => l !== "")
    const tools: Record<string, unknown> = {}
    for (const line of lines) {
      if (Object.keys(tools).length === 200) break
      const entry = JSON.parse(line) as { name?: string; parameters?: unknown }
      if (typeof entry.name === "string" && entry.parameters !== undefined && !(entry.name in tools)) tools[entry.name] = entry.parameters
    }
    expect(Object.keys(tools).length).toBe(200)
    const run = await toolgate("check", "--tools", file("corpus.json", tools), "--capabilities", file("corpus-caps.json", caps(tools)), "--json")
    const report = JSON.parse(run.stdout)
    expect(report.rows.length).toBe(200)
    // A schema against itself never drifts; a few may use constructs the prover leaves unsupported.
    expect(report.rows.filter((r: { verdict: string }) => r.verdict === "drift" || r.verdict === "unknown_tool")).toEqual([])
    expect(run.code === 0 || run.code === 2).toBe(true)
  })

  it("exits 4 with one readable line for bad input, never a stack trace", async () => {
    const caps1 = file("c.json", caps({ search }))
    const cases: Array<Array<string>> = [
      ["--tools", join(dir, "missing.json"), "--capabilities", caps1],
      ["--tools", file("notjson.json", "{nope"), "--capabilities", caps1],
      ["--tools", file("array.json", [1]), "--capabilities", caps1],
      ["--tools", file("badschema.json", { search: 5 }), "--capabilities", caps1],
      ["--tools", file("t.json", local)],
      ["--tools", file("t.json", local), "--capabilities", caps1, "--relay", "http://127.0.0.1:1"],
      ["--tools", file("t.json", local), "--relay", "ftp://example"],
      ["--tools", file("t.json", local), "--capabilities", file("notjson-caps.json", "]")],
      ["--capabilities", caps1]
    ]
    const runs = await Promise.all(cases.map((args) => toolgate("check", ...args)))
    runs.forEach((run, i) => {
      expect(run.code, cases[i]!.join(" ")).toBe(4)
      expect(run.stderr).not.toMatch(/\n\s+at /)
    })
  }, 180_000)
})

describe("toolgate check --relay (the process, a relay on loopback)", () => {
  type Answer = (res: http.ServerResponse) => void
  const serve = async (answer: Answer) => {
    const server = http.createServer((req, res) => {
      if (req.url !== "/v1/agent/capabilities") {
        res.writeHead(404).end()
        return
      }
      answer(res)
    })
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return { url, close: () => new Promise<void>((ok) => server.close(() => ok())).then(() => undefined) }
  }
  const json = (body: unknown, status = 200): Answer => (res) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))

  it("proves against a live relay (0), reports drift (1), predates (3), 5xx as unreachable (3) and a hanging relay after --timeout (3)", async () => {
    const tools = file("live-tools.json", local)
    const cases: Array<[Answer, number, string]> = [
      [json(caps(local)), 0, "2 proven"],
      [json(caps({ search: { type: "object" } })), 1, "drift"],
      [json({ documents: true }), 3, "predates"],
      [json({ error: "down" }, 503), 3, "unreachable"],
      [json({ capabilities_version: "1.0", tool_schemas: [] }), 2, "malformed"],
      [() => undefined, 3, "no answer"]
    ]
    for (const [answer, code, text] of cases) {
      const relay = await serve(answer)
      try {
        const run = await toolgate("check", "--tools", tools, "--relay", relay.url, "--timeout", "1")
        expect(run.code, text).toBe(code)
        expect(run.stdout).toContain(text)
      } finally {
        await relay.close().catch(() => undefined)
      }
    }
  }, 120_000)

  it("calls a refused connection unreachable (3)", async () => {
    const relay = await serve(json({}))
    await relay.close()
    const run = await toolgate("check", "--tools", file("t.json", local), "--relay", relay.url)
    expect(run.code).toBe(3)
    expect(run.stdout).toContain("ECONNREFUSED")
  })
})
