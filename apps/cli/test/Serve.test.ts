import { assert, describe, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { createServer, type AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { root, toolgateAsync } from "./toolgate.js"

/** A running `toolgate serve`: its output so far, its first stdout line, and its exit. */
interface Serving {
  readonly child: ChildProcessWithoutNullStreams
  readonly stdout: () => string
  readonly stderr: () => string
  readonly firstLine: Promise<string>
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

/** Starts the real bin (`toolgate serve …`). */
const serve = (...args: Array<string>): Serving => {
  const child = spawn(process.execPath, [resolve(root, "apps/cli/bin/toolgate.js"), "serve", ...args], { cwd: root })
  let stdout = "", stderr = ""
  child.stdout.setEncoding("utf8")
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (d: string) => (stderr += d))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on("exit", (code, signal) => done({ code, signal }))
  )
  const firstLine = new Promise<string>((done, fail) => {
    child.stdout.on("data", (d: string) => {
      stdout += d
      const end = stdout.indexOf("\n")
      if (end !== -1) done(stdout.slice(0, end))
    })
    void exited.then(() => fail(new Error(`toolgate serve exited before its first line: ${stderr}`)))
  })
  // a run that is meant to refuse never has a first line: mark the rejection handled (awaiting it still fails)
  firstLine.catch(() => undefined)
  return { child, stdout: () => stdout, stderr: () => stderr, firstLine, exited }
}

/** `promise`, or a failure after `ms` (so a bug fails the test instead of hanging it). */
const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  Promise.race([promise, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`timed out: ${what}`)), ms).unref())])

/** Runs `body` against a started `serve`, always killing the process afterwards. */
const withServe = async (args: ReadonlyArray<string>, body: (url: string, serving: Serving) => Promise<void>) => {
  const serving = serve(...args)
  try {
    const line = await within(serving.firstLine, 30_000, "the start line")
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(line)?.[1]
    assert.isDefined(url, line)
    await body(url!, serving)
  } finally {
    if (serving.child.exitCode === null && serving.child.signalCode === null) serving.child.kill("SIGKILL")
  }
}

const get = async (url: string) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) })
  return { status: response.status, text: await response.text() }
}
const post = async (url: string, body: unknown) => {
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" }, signal: AbortSignal.timeout(5_000) })
  return { status: response.status, text: await response.text() }
}
const dataOf = (sse: string) =>
  sse.split("\n\n").filter((b) => b.startsWith("data: ")).map((b) => JSON.parse(b.slice(6)) as { readonly _tag: string })
const turn = { messages: [{ _tag: "User", text: "What is the weather?" }], tools: ["get_weather"], toolChoice: "auto" }

/** Waits until `check` holds for the output (bounded). */
const eventually = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25))
  assert.strictEqual(check(), true, what)
}

/** A loopback port that is taken for the test's duration. */
const takenPort = () =>
  new Promise<{ readonly port: number; readonly close: () => void }>((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => done({ port: (server.address() as AddressInfo).port, close: () => server.close() }))
  })

/** A temporary directory with files, removed afterwards. */
const withFiles = async (files: Record<string, string>, body: (path: (name: string) => string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-serve-"))
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    await body((name) => join(dir, name))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A run that should refuse to start: exit 2, one readable line on stderr, no stack trace, nothing served. */
const refused = async (args: ReadonlyArray<string>) => {
  const serving = serve(...args)
  try {
    const { code } = await within(serving.exited, 30_000, "the exit")
    const stderr = serving.stderr().trim()
    assert.strictEqual(code, 2, stderr)
    assert.lengthOf(stderr.split("\n"), 1)
    assert.match(stderr, /^toolgate: /)
    assert.notMatch(stderr, /\n\s+at |Error:|FiberFailure/)
    assert.notInclude(serving.stdout(), "listening")
    return stderr
  } finally {
    if (serving.child.exitCode === null && serving.child.signalCode === null) serving.child.kill("SIGKILL")
  }
}

describe("toolgate serve (the process)", () => {
  it("--help names the options and gives an example", async () => {
    const help = await within(toolgateAsync("serve", "--help"), 60_000, "--help")
    assert.strictEqual(help.code, 0)
    for (const option of ["--port", "--profile", "--scenario", "--faults", "Example: toolgate serve", "/scenarios/<name>"]) assert.include(help.stdout, option)
  })

  it("serves the demo on a free port, logs each request, and exits 0 on SIGINT", async () => {
    await withServe(["--port", "0"], async (url, serving) => {
      assert.match(await within(serving.firstLine, 1_000, "line"), /^toolgate relay listening on http:\/\/127\.0\.0\.1:\d+ \(profile: demo "matches", .*scenarios: matches, drift, .*chaining.*; fault headers: off/)
      const capabilities = await get(`${url}/v1/agent/capabilities`)
      assert.strictEqual(capabilities.status, 200)
      assert.nestedProperty(JSON.parse(capabilities.text), "tool_schemas.get_weather")
      const drift = await get(`${url}/scenarios/drift/v1/agent/capabilities`)
      assert.strictEqual(drift.status, 200)
      assert.notStrictEqual(drift.text, capabilities.text)
      const answer = await post(`${url}/v1/agent/turns`, turn)
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(dataOf(answer.text).at(-1)?._tag, "Done")
      assert.strictEqual((await get(`${url}/scenarios/nope/v1/agent/capabilities`)).status, 404)
      await eventually(() => /GET \/scenarios\/nope\/v1\/agent\/capabilities 404 \d+ms/.test(serving.stdout()), "the 404's log line")
      const lines = serving.stdout().trim().split("\n").slice(1)
      assert.lengthOf(lines, 4)
      assert.match(lines[0]!, /^\d\d:\d\d:\d\d\.\d{3} GET \/v1\/agent\/capabilities 200 \d+ms$/)
      assert.match(lines[1]!, / GET \/scenarios\/drift\/v1\/agent\/capabilities 200 \d+ms$/)
      assert.match(lines[2]!, / POST \/v1\/agent\/turns 200 \d+ms$/)
      serving.child.kill("SIGINT")
      const exit = await within(serving.exited, 10_000, "the exit after SIGINT")
      assert.deepStrictEqual(exit, { code: 0, signal: null })
      assert.include(serving.stdout(), "toolgate relay stopped")
      assert.strictEqual(serving.stderr(), "")
    })
  })

  it("serves a profile file and a scenario file at the root; SIGTERM also ends it cleanly", async () => {
    const profile = { capabilities_version: "1.2", tool_schemas: { lookup: { type: "object" } }, ["__proto__"]: { polluted: true } }
    const script = {
      turns: [[[{ _tag: "TextDelta", text: "from the file" }, { _tag: "Done" }]], [{ fail: { reason: "file says no", retryable: false } }]]
    }
    await withFiles({ "profile.json": JSON.stringify(profile), "script.json": JSON.stringify(script) }, async (path) => {
      await withServe(["--port", "0", "--profile", path("profile.json"), "--scenario", path("script.json")], async (url, serving) => {
        assert.include(await serving.firstLine, `profile: ${path("profile.json")}, scenario: ${path("script.json")}`)
        const capabilities = await get(`${url}/v1/agent/capabilities`)
        assert.strictEqual(capabilities.text, JSON.stringify(profile))
        assert.strictEqual(Object.hasOwn(JSON.parse(capabilities.text), "__proto__"), true)
        assert.deepStrictEqual<unknown>(dataOf((await post(`${url}/v1/agent/turns`, turn)).text), script.turns[0]![0])
        const chat = await post(`${url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }] })
        assert.strictEqual(JSON.parse(chat.text).choices[0].message.content, "from the file")
        serving.child.kill("SIGTERM")
        assert.deepStrictEqual(await within(serving.exited, 10_000, "the exit after SIGTERM"), { code: 0, signal: null })
      })
    })
  })

  it("--faults: the start line says fault headers are on, and they are honoured (without it: a 400)", async () => {
    await withServe(["--port", "0", "--faults"], async (url, serving) => {
      assert.match(await serving.firstLine, /; fault headers: on \(x-toolgate-fault, x-toolgate-delay-ms\)\)$/)
      const failing = await fetch(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "fail" }, signal: AbortSignal.timeout(5_000) })
      assert.strictEqual(failing.status, 500)
    })
    await withServe(["--port", "0"], async (url) => {
      const refused = await fetch(`${url}/v1/agent/capabilities`, { headers: { "x-toolgate-fault": "fail" }, signal: AbortSignal.timeout(5_000) })
      assert.strictEqual(refused.status, 400)
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, /--faults/)
      const plain = await fetch(`${url}/v1/agent/turns`, { method: "POST", body: JSON.stringify(turn), signal: AbortSignal.timeout(5_000) })
      assert.strictEqual(plain.status, 415, "a text/plain POST (a web page's simple request) is refused")
    })
  })

  it("--allowed-host and --allowed-origin: a proxy's Host and a named web origin get through; any other is a 403", async () => {
    // fetch cannot set Host: node:http can
    const status = (url: string, headers: Record<string, string>) =>
      new Promise<number>((done, fail) => {
        const req = httpRequest(`${url}/v1/agent/capabilities`, { headers, timeout: 5_000 }, (res) => {
          res.resume()
          done(res.statusCode ?? 0)
        })
        req.on("error", fail)
        req.on("timeout", () => req.destroy(new Error("timed out")))
        req.end()
      })
    const args = ["--port", "0", "--allowed-host", "relay.internal", "--allowed-origin", "https://app.example:8443"]
    await withServe(args, async (url) => {
      assert.strictEqual(await status(url, { host: "relay.internal:8080" }), 200)
      assert.strictEqual(await status(url, { host: "evil.example" }), 403)
      assert.strictEqual(await status(url, { origin: "https://app.example:8443" }), 200)
      assert.strictEqual(await status(url, { origin: "https://evil.example" }), 403)
    })
    await withServe(["--port", "0"], async (url) => {
      assert.strictEqual(await status(url, { host: "relay.internal" }), 403, "without the flag a proxy's Host is refused")
    })
  })

  it("SIGINT with a request still open (a slow fault) shuts down without waiting for it, exit 0", async () => {
    await withServe(["--port", "0", "--faults"], async (url, serving) => {
      const open = fetch(`${url}/v1/agent/capabilities`, {
        headers: { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "600000" },
        signal: AbortSignal.timeout(30_000)
      }).then((r) => r.text()).then(() => "answered", () => "cut")
      // the request is in: its delay has started (no log line yet: a line is written when the answer is)
      await new Promise((r) => setTimeout(r, 300))
      serving.child.kill("SIGINT")
      assert.deepStrictEqual(await within(serving.exited, 10_000, "the exit with a request open"), { code: 0, signal: null })
      assert.strictEqual(await within(open, 10_000, "the open request"), "cut")
    })
  })

  it("a profile file alone keeps the demo's script at the root", async () => {
    await withFiles({ "profile.json": "{\"capabilities_version\":\"1.0\",\"tool_schemas\":{},\"faults\":[\"newer-major\"]}" }, async (path) => {
      await withServe(["--port", "0", "--profile", path("profile.json")], async (url, serving) => {
        assert.include(await serving.firstLine, "scenario: demo \"matches\"")
        assert.deepStrictEqual(JSON.parse((await get(`${url}/v1/agent/capabilities`)).text), { capabilities_version: "2.0", tool_schemas: {} })
        assert.strictEqual(dataOf((await post(`${url}/v1/agent/turns`, turn)).text).at(-1)?._tag, "Done")
      })
    })
  })

  it("a file that is missing, not JSON, not a script, or lists an unknown fault: exit 2 with one readable line", async () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    await withFiles({
      "text.json": "not json {",
      "shape.json": "{\"turns\":[[{\"fail\":{}}]]}",
      "deep.json": `{"turns":${deep}}`,
      "faults.json": "{\"faults\":[\"explode\"]}",
      "foo.json": "{\"foo\": 1}",
      "list.json": "[1, 2]"
    }, async (path) => {
      // the processes run side by side (each takes seconds to start on a loaded machine)
      const [missing, text, shape, deepScript, faults, foo, list] = await Promise.all([
        refused(["--port", "0", "--profile", path("missing.json")]),
        refused(["--port", "0", "--scenario", path("text.json")]),
        refused(["--port", "0", "--scenario", path("shape.json")]),
        refused(["--port", "0", "--scenario", path("deep.json")]),
        refused(["--port", "0", "--profile", path("faults.json")]),
        refused(["--port", "0", "--profile", path("foo.json")]),
        refused(["--port", "0", "--profile", path("list.json")])
      ])
      assert.match(missing, /missing\.json: cannot be read/)
      assert.match(text, /text\.json: is not JSON/)
      assert.match(shape, /shape\.json: is not a script: /)
      assert.match(deepScript, /deep\.json: is not a script/)
      assert.match(faults, /faults\.json: "faults" lists "explode", which is not a fault/)
      // a profile must decode: {"foo": 1} is no profile, never an "old relay" served in silence
      assert.match(foo, /foo\.json: is not a profile .*capabilities_version: is missing/)
      assert.match(foo, /tool_schemas: is missing/)
      assert.match(list, /list\.json: is not a profile/)
      // --json: the same refusal as one BadInput object on stdout
      const json = await within(toolgateAsync("serve", "--port", "0", "--profile", path("foo.json"), "--json"), 60_000, "--json refusal")
      assert.strictEqual(json.code, 2)
      const printed = JSON.parse(json.stdout)
      assert.deepInclude(printed, { _tag: "BadInput", exitCode: 2 })
      assert.include(printed.message, "is not a profile")
    })
  })

  it("--json prints the start line, each request and the stop as JSON objects", async () => {
    const serving = serve("--port", "0", "--json")
    try {
      const start = JSON.parse(await within(serving.firstLine, 30_000, "the start line"))
      assert.deepInclude(start, { _tag: "Listening", profile: 'demo "matches"', faultHeaders: false })
      assert.includeMembers(start.scenarios, ["matches", "drift"])
      assert.strictEqual((await get(`${start.url}/v1/agent/capabilities`)).status, 200)
      await eventually(() => serving.stdout().trim().split("\n").length >= 2, "the request's line")
      const request = JSON.parse(serving.stdout().trim().split("\n")[1]!)
      assert.strictEqual(request._tag, "Request")
      assert.match(request.line, /^GET \/v1\/agent\/capabilities 200 \d+ms$/)
      serving.child.kill("SIGINT")
      assert.deepStrictEqual(await within(serving.exited, 10_000, "the exit after SIGINT"), { code: 0, signal: null })
      assert.deepStrictEqual(JSON.parse(serving.stdout().trim().split("\n").at(-1)!), { _tag: "Stopped" })
    } finally {
      if (serving.child.exitCode === null && serving.child.signalCode === null) serving.child.kill("SIGKILL")
    }
  })

  it("a port in use or out of range: exit 2 with one readable line", async () => {
    const taken = await takenPort()
    try {
      const [inUse, tooLarge, negative] = await Promise.all([
        refused(["--port", String(taken.port)]),
        refused(["--port", "70000"]),
        refused(["--port", "-1"])
      ])
      assert.strictEqual(inUse, `toolgate: Port ${taken.port} on 127.0.0.1 is in use; choose another with --port (0: any free port).`)
      assert.match(tooLarge, /--port must be 0 to 65535, got 70000/)
      assert.match(negative, /--port must be 0 to 65535/)
    } finally {
      taken.close()
    }
  })
})
