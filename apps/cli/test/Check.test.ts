import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
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
    assert.strictEqual(run.code, 0)
    assert.match(run.stdout, /✔ get_weather\s+proven/)
    assert.match(run.stdout, /✔ search\s+proven/)
    assert.include(run.stdout, "2 proven, 0 drifted, 0 unknown, 0 unsupported")
  })

  it("exits 1 for drift (with the witness) and for a tool the app cannot execute; --json says the same", async () => {
    const wider = { ...weather, properties: { ...weather.properties, days: { type: "integer", maximum: 30 } } }
    const capsFile = file("drift.json", caps({ get_weather: wider, search, delete_all: { type: "object" } }))
    const run = await toolgate("check", "--tools", file("tools.json", local), "--capabilities", capsFile)
    assert.strictEqual(run.code, 1)
    assert.include(run.stdout, "witness")
    assert.include(run.stdout, '"days":30')
    assert.match(run.stdout, /✘ delete_all\s+unknown tool/)
    // an unknown tool is counted apart from the drifted ones
    assert.include(run.stdout, "1 proven, 1 drifted, 1 unknown, 0 unsupported")
    const json = await toolgate("check", "--tools", file("tools.json", local), "--capabilities", capsFile, "--json")
    assert.strictEqual(json.code, 1)
    const report = JSON.parse(json.stdout)
    assert.deepInclude(report, { _tag: "Checked", exitCode: 1, summary: { proven: 1, drifted: 1, unknown: 1, unsupported: 0 } })
    assert.deepStrictEqual(report.rows.map((r: { _tag: string }) => r._tag), ["Drift", "Subtype", "UnknownTool"])
    assert.strictEqual(report.rows[0].witness.days, 30)
    assert.deepStrictEqual(Object.keys(report.rows[0]).slice(0, 2), ["_tag", "tool"])
  })

  it("exits 2 for a construct it cannot prove and for a broken or too-new envelope; 3 for a relay that predates the export", async () => {
    const pattern = { type: "object", properties: { q: { type: "string", pattern: "^(?!b)" } }, required: ["q"] }
    const tools = file("pattern-tools.json", { search: pattern })
    assert.strictEqual((await toolgate("check", "--tools", tools, "--capabilities", file("p.json", caps({ search: { ...pattern, properties: { q: { type: "string", pattern: "^a" } } } })))).code, 2)
    const newer = await toolgate("check", "--tools", tools, "--capabilities", file("v2.json", caps({}, "2.0")))
    assert.strictEqual(newer.code, 2)
    assert.include(newer.stdout, "unsupported_version")
    assert.strictEqual((await toolgate("check", "--tools", tools, "--capabilities", file("half.json", { capabilities_version: "1.0" }))).code, 2)
    const old = await toolgate("check", "--tools", tools, "--capabilities", file("old.json", { documents: true }))
    assert.strictEqual(old.code, 3)
    assert.include(old.stdout, "predates")
  })

  it("reads an MCP tools/list result, bare or as a JSON-RPC response, and keeps a tool named __proto__", async () => {
    const list = { tools: [{ name: "search", inputSchema: search }, { name: "__proto__", inputSchema: { type: "object" } }] }
    const exported = file("proto-caps.json", `{"capabilities_version":"1.1","tool_schemas":{"search":${JSON.stringify(search)},"__proto__":{"type":"object","properties":{}}}}`)
    assert.strictEqual((await toolgate("check", "--tools", file("mcp.json", list), "--capabilities", exported)).code, 0)
    const rpc = await toolgate("check", "--tools", file("rpc.json", { jsonrpc: "2.0", id: 1, result: list }), "--capabilities", exported, "--json")
    assert.strictEqual(rpc.code, 0)
    assert.deepStrictEqual(JSON.parse(rpc.stdout).rows.map((r: { tool: string }) => r.tool), ["search", "__proto__"])
    // the same list inline, through its own option
    assert.strictEqual((await toolgate("check", "--tools-json", JSON.stringify(list), "--capabilities", exported)).code, 0)
    assert.isUndefined(({} as Record<string, unknown>).type)
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
    assert.strictEqual(Object.keys(tools).length, 200)
    const run = await toolgate("check", "--tools", file("corpus.json", tools), "--capabilities", file("corpus-caps.json", caps(tools)), "--json")
    const report = JSON.parse(run.stdout)
    assert.strictEqual(report.rows.length, 200)
    // A schema against itself never drifts; a few may use constructs the prover leaves unsupported.
    assert.deepStrictEqual(report.rows.filter((r: { _tag: string }) => r._tag === "Drift" || r._tag === "UnknownTool"), [])
    assert.strictEqual(run.code === 0 || run.code === 2, true)
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
      assert.strictEqual(run.code, 4, cases[i]!.join(" "))
      assert.notMatch(run.stderr, /\n\s+at /)
    })
    // with --json, each says what was wrong on stdout, as one object (a command-line mistake included)
    const withJson = [...cases, ["--tools", file("t.json", local), "--bogus"], ["--tools", file("t.json", local), "--timeout", "soon"]]
    const jsonRuns = await Promise.all(withJson.map((args) => toolgate("check", ...args, "--json")))
    jsonRuns.forEach((run, i) => {
      assert.strictEqual(run.code, 4, withJson[i]!.join(" "))
      const printed = JSON.parse(run.stdout)
      assert.deepInclude(printed, { _tag: "BadInput", exitCode: 4 }, withJson[i]!.join(" "))
      assert.isString(printed.message, withJson[i]!.join(" "))
    })
  }, 180_000)

  it("a local schema upgrade had to change lossily (an unknown type name) is bad input naming the tool and the note, never a proof", async () => {
    const objekt = { get_weather: { type: "objekt" }, search: { ...search, properties: { q: { type: "strng" } } } }
    const capsFile = file("objekt-caps.json", caps(objekt))
    const run = await toolgate("check", "--tools", file("objekt.json", objekt), "--capabilities", capsFile)
    assert.strictEqual(run.code, 4)
    assert.notInclude(run.stdout, "proven")
    assert.include(run.stderr, '"get_weather"')
    assert.include(run.stderr, "unknown type name `objekt` removed")
    const json = await toolgate("check", "--tools", file("objekt.json", objekt), "--capabilities", capsFile, "--json")
    assert.strictEqual(json.code, 4)
    const printed = JSON.parse(json.stdout)
    assert.deepInclude(printed, { _tag: "BadInput", exitCode: 4 })
    assert.include(printed.message, "get_weather")
    // a faithful upgrade (a BFCL type name) is no error: the proof runs, and the note is shown
    const dict = { get_weather: { ...weather, type: "dict" } }
    const upgraded = await toolgate("check", "--tools", file("dict.json", dict), "--capabilities", file("dict-caps.json", caps({ get_weather: weather })))
    assert.strictEqual(upgraded.code, 0)
    assert.match(upgraded.stdout, /✔ get_weather\s+proven/)
    assert.include(upgraded.stdout, "type `dict` is read as `object`")
  })

  it("a local keyword one misspelling from a known one is bad input naming tool, path and keyword; other unknown keywords are warnings", async () => {
    const misspelled = { get_weather: weather, search: { type: "object", propertes: { q: { type: "string" } } } }
    const capsFile = file("misspelled-caps.json", caps({ get_weather: weather, search: { type: "object" } }))
    const run = await toolgate("check", "--tools", file("misspelled.json", misspelled), "--capabilities", capsFile)
    assert.strictEqual(run.code, 4)
    assert.notInclude(run.stdout, "proven")
    assert.include(run.stderr, "tool `search` at /propertes: `propertes` (did you mean `properties`?)")
    const json = await toolgate("check", "--tools", file("misspelled.json", misspelled), "--capabilities", capsFile, "--json")
    assert.strictEqual(json.code, 4)
    const printed = JSON.parse(json.stdout)
    assert.deepInclude(printed, { _tag: "BadInput", exitCode: 4 })
    assert.include(printed.message, "`properties`")
    // a keyword close to none is a warning: the proof runs, the report and --json list it
    const vendor = { get_weather: { ...weather, "ui_hint": "map" }, search }
    const warned = await toolgate("check", "--tools", file("vendor.json", vendor), "--capabilities", file("vendor-caps.json", caps(local)))
    assert.strictEqual(warned.code, 0, warned.stderr)
    assert.match(warned.stdout, /✔ get_weather\s+proven/)
    assert.include(warned.stdout, "warning: Tool `get_weather`: `ui_hint` (at /ui_hint) is not a keyword the validator knows")
    const warnedJson = await toolgate("check", "--tools", file("vendor.json", vendor), "--capabilities", file("vendor-caps.json", caps(local)), "--json")
    assert.strictEqual(warnedJson.code, 0)
    assert.deepStrictEqual(JSON.parse(warnedJson.stdout).warnings.map((w: { tool: string; path: string; name: string }) => [w.tool, w.path, w.name]), [["get_weather", "/ui_hint", "ui_hint"]])
  })

  it("reads a file whose name starts with a digit as a file; inline JSON only through --tools-json / --capabilities-json", async () => {
    const numbered = file("01-string-integers.json", local)
    const run = await toolgate("check", "--tools", numbered, "--capabilities-json", JSON.stringify(caps(local)), "--json")
    assert.strictEqual(run.code, 0, run.stderr)
    assert.deepInclude(JSON.parse(run.stdout), { _tag: "Checked", exitCode: 0, source: "--capabilities-json (inline)" })
    const both = await toolgate("check", "--tools", numbered, "--tools-json", "{}", "--capabilities", file("c2.json", caps(local)))
    assert.strictEqual(both.code, 4)
    assert.include(both.stderr, "not both")
  })
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
        assert.strictEqual(run.code, code, text)
        assert.include(run.stdout, text)
      } finally {
        await relay.close().catch(() => undefined)
      }
    }
  }, 120_000)

  it("a 404 at the URL given hints that --relay wants the base URL", async () => {
    const relay = await serve(json(caps(local)))
    try {
      const run = await toolgate("check", "--tools", file("t.json", local), "--relay", `${relay.url}/v1/agent/capabilities`, "--json")
      assert.strictEqual(run.code, 3)
      const report = JSON.parse(run.stdout)
      assert.deepInclude(report, { _tag: "Unreachable", exitCode: 3, detail: "HTTP 404" })
      assert.include(report.hint, `--relay ${relay.url}`)
      const text = await toolgate("check", "--tools", file("t.json", local), "--relay", `${relay.url}/v1/agent/capabilities`)
      assert.include(text.stdout, `hint: --relay wants the relay's base URL: try --relay ${relay.url}`)
    } finally {
      await relay.close()
    }
  })

  it("says on stderr that it is waiting for a relay that has not answered yet (the relay answers once it is said)", async () => {
    const pending: Array<http.ServerResponse> = []
    let said = false
    const relay = await serve((res) => said ? json(caps(local))(res) : void pending.push(res))
    const child = spawn(process.execPath, [resolve(root, "apps/cli/bin/toolgate.js"), "check", "--tools", file("t.json", local), "--relay", relay.url], { cwd: root })
    let stdout = "", stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    const exited = new Promise<number | null>((ok) => child.on("close", (code) => ok(code)))
    try {
      await new Promise<void>((ok) =>
        child.stderr.setEncoding("utf8").on("data", (d: string) => {
          stderr += d
          if (stderr.includes("waiting for the relay")) ok()
        })
      )
      said = true
      for (const res of pending) json(caps(local))(res)
      assert.strictEqual(await exited, 0)
      assert.include(stderr, `… waiting for the relay at ${relay.url}`)
      assert.include(stdout, "2 proven")
    } finally {
      child.kill("SIGKILL")
      await relay.close()
    }
  })

  it("a relay that trickles its capabilities body slower than --timeout is unreachable (3); one whose body passes 16 MiB is a broken envelope (2)", async () => {
    const tools = file("bounded-tools.json", local)
    const held: Array<http.ServerResponse> = []
    const timers: Array<ReturnType<typeof setInterval>> = []
    const trickling = await serve((res) => {
      held.push(res)
      res.writeHead(200, { "content-type": "application/json" })
      res.write("{\"capabilities_version\":\"1.0\",")
      timers.push(setInterval(() => res.write(" "), 100))
    })
    const huge = await serve((res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...caps(local), pad: "x".repeat(17 * 1024 * 1024) }))
    )
    try {
      const [slow, big] = await Promise.all([
        toolgate("check", "--tools", tools, "--relay", trickling.url, "--timeout", "1", "--json"),
        toolgate("check", "--tools", tools, "--relay", huge.url, "--json")
      ])
      assert.strictEqual(slow.code, 3, slow.stderr)
      assert.deepInclude(JSON.parse(slow.stdout), { _tag: "Unreachable", exitCode: 3 })
      assert.strictEqual(big.code, 2, big.stderr)
      const report = JSON.parse(big.stdout)
      assert.deepInclude(report, { _tag: "ContractError", exitCode: 2 })
      assert.match(report.detail, /larger than 16777216 bytes/)
    } finally {
      timers.forEach(clearInterval)
      held.forEach((res) => res.destroy())
      await Promise.all([trickling.close(), huge.close()])
    }
  }, 120_000)

  it("calls a refused connection unreachable (3)", async () => {
    const relay = await serve(json({}))
    await relay.close()
    const run = await toolgate("check", "--tools", file("t.json", local), "--relay", relay.url)
    assert.strictEqual(run.code, 3)
    assert.include(run.stdout, "ECONNREFUSED")
  })
})
