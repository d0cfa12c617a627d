import { describe, expect, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
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
    expect(url, line).toBeDefined()
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
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(5_000) })
  return { status: response.status, text: await response.text() }
}
const dataOf = (sse: string) =>
  sse.split("\n\n").filter((b) => b.startsWith("data: ")).map((b) => JSON.parse(b.slice(6)) as { readonly _tag: string })
const turn = { messages: [{ _tag: "User", text: "What is the weather?" }], tools: ["get_weather"], toolChoice: "auto" }

/** Waits until `check` holds for the output (bounded). */
const eventually = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25))
  expect(check(), what).toBe(true)
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
    expect(code, stderr).toBe(2)
    expect(stderr.split("\n")).toHaveLength(1)
    expect(stderr).toMatch(/^toolgate: /)
    expect(stderr).not.toMatch(/\n\s+at |Error:|FiberFailure/)
    expect(serving.stdout()).not.toContain("listening")
    return stderr
  } finally {
    if (serving.child.exitCode === null && serving.child.signalCode === null) serving.child.kill("SIGKILL")
  }
}

describe("toolgate serve (the process)", () => {
  it("--help names the options and gives an example", async () => {
    const help = await within(toolgateAsync("serve", "--help"), 60_000, "--help")
    expect(help.code).toBe(0)
    for (const option of ["--port", "--profile", "--scenario", "Example: toolgate serve", "/scenarios/<name>"]) expect(help.stdout).toContain(option)
  })

  it("serves the demo on a free port, logs each request, and exits 0 on SIGINT", async () => {
    await withServe(["--port", "0"], async (url, serving) => {
      expect(await within(serving.firstLine, 1_000, "line")).toMatch(
        /^toolgate relay listening on http:\/\/127\.0\.0\.1:\d+ \(profile: demo "matches", .*scenarios: matches, drift, .*chaining/
      )
      const capabilities = await get(`${url}/v1/agent/capabilities`)
      expect(capabilities.status).toBe(200)
      expect(JSON.parse(capabilities.text)).toHaveProperty("tool_schemas.get_weather")
      const drift = await get(`${url}/scenarios/drift/v1/agent/capabilities`)
      expect(drift.status).toBe(200)
      expect(drift.text).not.toBe(capabilities.text)
      const answer = await post(`${url}/v1/agent/turns`, turn)
      expect(answer.status).toBe(200)
      expect(dataOf(answer.text).at(-1)?._tag).toBe("Done")
      expect((await get(`${url}/scenarios/nope/v1/agent/capabilities`)).status).toBe(404)
      await eventually(() => /GET \/scenarios\/nope\/v1\/agent\/capabilities 404 \d+ms/.test(serving.stdout()), "the 404's log line")
      const lines = serving.stdout().trim().split("\n").slice(1)
      expect(lines).toHaveLength(4)
      expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/v1\/agent\/capabilities 200 \d+ms$/)
      expect(lines[1]).toMatch(/ GET \/scenarios\/drift\/v1\/agent\/capabilities 200 \d+ms$/)
      expect(lines[2]).toMatch(/ POST \/v1\/agent\/turns 200 \d+ms$/)
      serving.child.kill("SIGINT")
      const exit = await within(serving.exited, 10_000, "the exit after SIGINT")
      expect(exit).toEqual({ code: 0, signal: null })
      expect(serving.stdout()).toContain("toolgate relay stopped")
      expect(serving.stderr()).toBe("")
    })
  })

  it("serves a profile file and a scenario file at the root; SIGTERM also ends it cleanly", async () => {
    const profile = { capabilities_version: "1.2", tool_schemas: { lookup: { type: "object" } }, ["__proto__"]: { polluted: true } }
    const script = {
      turns: [[[{ _tag: "TextDelta", text: "from the file" }, { _tag: "Done" }]], [{ fail: { reason: "file says no", retryable: false } }]]
    }
    await withFiles({ "profile.json": JSON.stringify(profile), "script.json": JSON.stringify(script) }, async (path) => {
      await withServe(["--port", "0", "--profile", path("profile.json"), "--scenario", path("script.json")], async (url, serving) => {
        expect(await serving.firstLine).toContain(`profile: ${path("profile.json")}, scenario: ${path("script.json")}`)
        const capabilities = await get(`${url}/v1/agent/capabilities`)
        expect(capabilities.text).toBe(JSON.stringify(profile))
        expect(Object.hasOwn(JSON.parse(capabilities.text), "__proto__")).toBe(true)
        expect(dataOf((await post(`${url}/v1/agent/turns`, turn)).text)).toEqual(script.turns[0]![0])
        const chat = await post(`${url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }] })
        expect(JSON.parse(chat.text).choices[0].message.content).toBe("from the file")
        serving.child.kill("SIGTERM")
        expect(await within(serving.exited, 10_000, "the exit after SIGTERM")).toEqual({ code: 0, signal: null })
      })
    })
  })

  it("SIGINT with a request still open (a slow fault) shuts down without waiting for it, exit 0", async () => {
    await withServe(["--port", "0"], async (url, serving) => {
      const open = fetch(`${url}/v1/agent/capabilities`, {
        headers: { "x-toolgate-fault": "slow", "x-toolgate-delay-ms": "600000" },
        signal: AbortSignal.timeout(30_000)
      }).then((r) => r.text()).then(() => "answered", () => "cut")
      // the request is in: its delay has started (no log line yet: a line is written when the answer is)
      await new Promise((r) => setTimeout(r, 300))
      serving.child.kill("SIGINT")
      expect(await within(serving.exited, 10_000, "the exit with a request open")).toEqual({ code: 0, signal: null })
      expect(await within(open, 10_000, "the open request")).toBe("cut")
    })
  })

  it("a profile file alone keeps the demo's script at the root", async () => {
    await withFiles({ "profile.json": "{\"capabilities_version\":\"1.0\",\"tool_schemas\":{},\"faults\":[\"newer-major\"]}" }, async (path) => {
      await withServe(["--port", "0", "--profile", path("profile.json")], async (url, serving) => {
        expect(await serving.firstLine).toContain("scenario: demo \"matches\"")
        expect(JSON.parse((await get(`${url}/v1/agent/capabilities`)).text)).toEqual({ capabilities_version: "2.0", tool_schemas: {} })
        expect(dataOf((await post(`${url}/v1/agent/turns`, turn)).text).at(-1)?._tag).toBe("Done")
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
      expect(missing).toMatch(/missing\.json: cannot be read/)
      expect(text).toMatch(/text\.json: is not JSON/)
      expect(shape).toMatch(/shape\.json: is not a script: /)
      expect(deepScript).toMatch(/deep\.json: is not a script/)
      expect(faults).toMatch(/faults\.json: "faults" lists "explode", which is not a fault/)
      // a profile must decode: {"foo": 1} is no profile, never an "old relay" served in silence
      expect(foo).toMatch(/foo\.json: is not a profile .*capabilities_version: is missing/)
      expect(foo).toMatch(/tool_schemas: is missing/)
      expect(list).toMatch(/list\.json: is not a profile/)
      // --json: the same refusal as one BadInput object on stdout
      const json = await within(toolgateAsync("serve", "--port", "0", "--profile", path("foo.json"), "--json"), 60_000, "--json refusal")
      expect(json.code).toBe(2)
      expect(JSON.parse(json.stdout)).toMatchObject({ _tag: "BadInput", exitCode: 2, message: expect.stringContaining("is not a profile") })
    })
  })

  it("--json prints the start line, each request and the stop as JSON objects", async () => {
    const serving = serve("--port", "0", "--json")
    try {
      const start = JSON.parse(await within(serving.firstLine, 30_000, "the start line"))
      expect(start).toMatchObject({ _tag: "Listening", profile: 'demo "matches"', scenarios: expect.arrayContaining(["matches", "drift"]) })
      expect((await get(`${start.url}/v1/agent/capabilities`)).status).toBe(200)
      await eventually(() => serving.stdout().trim().split("\n").length >= 2, "the request's line")
      expect(JSON.parse(serving.stdout().trim().split("\n")[1]!)).toMatchObject({ _tag: "Request", line: expect.stringMatching(/^GET \/v1\/agent\/capabilities 200 \d+ms$/) })
      serving.child.kill("SIGINT")
      expect(await within(serving.exited, 10_000, "the exit after SIGINT")).toEqual({ code: 0, signal: null })
      expect(JSON.parse(serving.stdout().trim().split("\n").at(-1)!)).toEqual({ _tag: "Stopped" })
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
      expect(inUse).toBe(`toolgate: Port ${taken.port} on 127.0.0.1 is in use; choose another with --port (0: any free port).`)
      expect(tooLarge).toMatch(/--port must be 0 to 65535, got 70000/)
      expect(negative).toMatch(/--port must be 0 to 65535/)
    } finally {
      taken.close()
    }
  })
})
