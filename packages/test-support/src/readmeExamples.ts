/**
 * Runs the examples of a README as written (used by every package's README tests and the repository's).
 *
 * The rule:
 * - An example is a ```ts block whose first line starts with `import`. It is written to
 *   `<dir>/.readme-example-<pid>-<n>.ts` (removed afterwards) and run there with `npx tsx`.
 *   It must exit with code 0 within 60 seconds.
 * - A line that starts with `console.log(` (after indentation), directly followed by a line `// text`, states
 *   its output: that `console.log` must run at least once, and every time it runs it must print exactly one
 *   line, equal to `text`. A `…` in `text` stands for any characters: the line starts with the part
 *   before the first `…`, ends with the part after the last, and holds the parts between, in order.
 * - Other lines (and what they print) are not compared.
 *
 * To know which `console.log` printed what, each compared call is renamed on its own line (so line
 * numbers stay as in the README) to a function appended to the file that prints a marked line.
 *
 * An example that serves until Ctrl-C (a relay on a fixed port) states no output; it runs with that port
 * replaced by a free one, is asked the paths the test names over loopback until it answers (30 seconds at
 * most), and is stopped.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"

/** One output a README comment states. */
export interface Expectation {
  readonly id: number
  /** 1-based line in the block of the `console.log`. */
  readonly line: number
  readonly text: string
}

/** An example and its stated outputs, with the compared `console.log`s renamed. */
export interface Example {
  readonly index: number
  readonly firstLine: string
  readonly source: string
  readonly expectations: ReadonlyArray<Expectation>
}

const MARK = "\u001eREADME"

/** Appended to every example: prints a marked line per compared call (function declarations are hoisted). */
const helper = [
  "",
  "import { format as __readmeFormat } from \"node:util\"",
  "function __readmeLog(id: number) {",
  `  return (...args: Array<unknown>): void => void process.stdout.write("${MARK}" + id + " " + JSON.stringify(__readmeFormat(...args)) + "\\n")`,
  "}",
  ""
].join("\n")

/** The README's examples, in order. */
export const examples = (markdown: string): ReadonlyArray<Example> => {
  const blocks = Array.from(markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm), (m) => m[1]!)
  return blocks.filter((b) => b.startsWith("import ")).map((block, index) => {
    const lines = block.split("\n")
    const expectations: Array<Expectation> = []
    const source = lines.map((line, i) => {
      const next = lines[i + 1]?.trim()
      if (!line.trim().startsWith("console.log(") || next === undefined || !next.startsWith("// ")) return line
      const id = expectations.length
      expectations.push({ id, line: i + 1, text: next.slice(3) })
      return line.replace("console.log(", `__readmeLog(${id})(`)
    }).join("\n")
    return { index, firstLine: lines[0]!, source: source + helper, expectations }
  })
}

/** Whether `line` is what `text` states (`…` stands for any characters). */
export const matches = (text: string, line: string): boolean => {
  const parts = text.split("…")
  if (parts.length === 1) return line === text
  const first = parts[0]!
  const last = parts.at(-1)!
  if (!line.startsWith(first) || !line.endsWith(last) || line.length < first.length + last.length) return false
  let at = first.length
  const end = line.length - last.length
  for (const part of parts.slice(1, -1)) {
    const found = line.indexOf(part, at)
    if (found === -1 || found + part.length > end) return false
    at = found + part.length
  }
  return true
}

/** The marked lines of an example's stdout: what each compared call printed. */
const printed = (stdout: string): Map<number, Array<string>> => {
  const byId = new Map<number, Array<string>>()
  for (const line of stdout.split("\n")) {
    if (!line.startsWith(MARK)) continue
    const space = line.indexOf(" ")
    const id = Number(line.slice(MARK.length, space))
    byId.set(id, [...(byId.get(id) ?? []), JSON.parse(line.slice(space + 1)) as string])
  }
  return byId
}

export interface Run {
  readonly code: number | string | null
  readonly stdout: string
  readonly stderr: string
}

export const run = (file: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Run> =>
  new Promise((resolve) => {
    execFile("npx", ["tsx", "--conditions=@toolgate/source", file], { cwd, env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : error.signal ?? "failed"
      resolve({ code, stdout, stderr })
    })
  })

/** Runs one example in `dir` with `env` and asserts its exit code and every stated output. */
export const check = async (example: Example, dir: string, env: NodeJS.ProcessEnv): Promise<void> => {
  // the process id keeps two runs of a test (two engineers, one tree) from sharing a file
  const file = path.join(dir, `.readme-example-${process.pid}-${example.index + 1}.ts`)
  fs.writeFileSync(file, example.source)
  try {
    const result = await run(file, dir, env)
    const report = `\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
    assert.strictEqual(result.code, 0, `exit code${report}`)
    const byId = printed(result.stdout)
    for (const e of example.expectations) {
      const lines = byId.get(e.id) ?? []
      assert.isAbove(lines.length, 0, `the console.log on line ${e.line} never ran${report}`)
      for (const line of lines) {
        assert.isFalse(line.includes("\n"), `the console.log on line ${e.line} printed several lines:\n${line}`)
        assert.isTrue(matches(e.text, line), `line ${e.line}: expected\n  ${e.text}\nprinted\n  ${line}`)
      }
    }
  } finally {
    fs.rmSync(file, { force: true })
  }
}

/** An example that serves until Ctrl-C: its fixed `port`, and the loopback paths to ask with the body each answers (`…` as in comments). */
export interface Serving {
  readonly index: number
  readonly port: number
  readonly answers: ReadonlyArray<readonly [path: string, body: string]>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    }).on("error", reject)
  })

/** The body at `url` once the server answers (a refused connection is retried until `deadline`). */
const bodyWhenUp = async (url: string, deadline: number): Promise<string> => {
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) })
      return await response.text()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}

/** Runs a serving example on a free port, asks it what `serving` names, and stops it (its whole process group). */
export const serve = async (example: Example, dir: string, serving: Serving): Promise<void> => {
  const port = await freePort()
  const file = path.join(dir, `.readme-example-${process.pid}-${example.index + 1}.ts`)
  assert.isTrue(example.source.includes(`port: ${serving.port}`), `example ${example.index + 1} serves on port ${serving.port}`)
  fs.writeFileSync(file, example.source.replaceAll(`port: ${serving.port}`, `port: ${port}`))
  const child = spawn("npx", ["tsx", "--conditions=@toolgate/source", file], { cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout.on("data", (d) => output += d)
  child.stderr.on("data", (d) => output += d)
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  try {
    const deadline = Date.now() + 30_000
    for (const [at, body] of serving.answers) {
      const got = await bodyWhenUp(`http://127.0.0.1:${port}${at}`, deadline)
      assert.isTrue(matches(body, got), `${at}: expected\n  ${body}\nanswered\n  ${got}\n--- output\n${output}`)
    }
  } finally {
    try {
      process.kill(-child.pid!, "SIGTERM")
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
    fs.rmSync(file, { force: true })
  }
}

/**
 * A package's README test when its examples need nothing but the package (no server of the test's own): the
 * README must hold an example stating at least `minOutputs` outputs, and every example of the README and of
 * `docs/reference.md` (when there is one) runs as written; those `serving` names (a server that runs until
 * Ctrl-C, numbered across both files) state no output and are asked over loopback.
 */
export const describeReadme = (packageDir: string, options: { readonly minOutputs: number; readonly serving?: ReadonlyArray<Serving> }): void => {
  const readme = examples(fs.readFileSync(path.join(packageDir, "README.md"), "utf8"))
  const referencePath = path.join(packageDir, "docs", "reference.md")
  // numbered after the README's, so no two examples share a file name
  const reference = fs.existsSync(referencePath)
    ? examples(fs.readFileSync(referencePath, "utf8")).map((e) => ({ ...e, index: e.index + readme.length }))
    : []
  const serving = new Map((options.serving ?? []).map((s) => [s.index, s]))
  describe("README.md examples", () => {
    it("the README has a runnable example with stated outputs", () => {
      assert.isTrue(readme.some((e) => e.expectations.length >= options.minOutputs))
      for (const i of serving.keys()) {
        assert.strictEqual([...readme, ...reference][i]?.expectations.length, 0, `example ${i + 1} serves, so it states no output`)
      }
    })
    for (const [file, found] of [["README.md", readme], ["docs/reference.md", reference]] as const) {
      for (const example of found) {
        const s = serving.get(example.index)
        if (s === undefined) {
          it(`${file} example ${example.index + 1} (${example.firstLine}) runs and prints what its comments say`, () =>
            check(example, packageDir, process.env), 90_000)
        } else {
          it(`${file} example ${example.index + 1} (${example.firstLine}) serves what it says over loopback`, () =>
            serve(example, packageDir, s), 90_000)
        }
      }
    }
  })
}
