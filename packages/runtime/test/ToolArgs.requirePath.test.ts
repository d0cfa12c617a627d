import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { JsonValue } from "@toolgate/json-schema"
import { Tool, ToolArgs, ToolEnvelope } from "@toolgate/runtime"

/**
 * A fresh sandbox: `root/` (with `a/b/`, `a/file.txt`) and `outside/` beside it; inside root, links that
 * stay (`in` → `a`), leave (`out` → `../outside`, `abs` → outside's absolute path), dangle out of root
 * (`dangling` → `../outside/new`; `dangling2` → `up/../<top>/outside/d2`, which reads as inside root when
 * the `..` is taken as text but lands in outside once `up` is followed), loop (`loop` → `loop`), and go up
 * (`up` → `..`).
 */
const made: Array<string> = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const sandbox = () => {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-path-")))
  made.push(top)
  const root = path.join(top, "root")
  const outside = path.join(top, "outside")
  fs.mkdirSync(path.join(root, "a", "b"), { recursive: true })
  fs.mkdirSync(outside)
  fs.writeFileSync(path.join(root, "a", "file.txt"), "x")
  fs.symlinkSync("a", path.join(root, "in"))
  fs.symlinkSync("../outside", path.join(root, "out"))
  fs.symlinkSync(outside, path.join(root, "abs"))
  fs.symlinkSync("../outside/new", path.join(root, "dangling"))
  fs.symlinkSync(`up/../${path.basename(top)}/outside/d2`, path.join(root, "dangling2"))
  fs.symlinkSync("a/b", path.join(root, "deep"))
  fs.symlinkSync("loop", path.join(root, "loop"))
  fs.symlinkSync("..", path.join(root, "up"))
  return { top, root, outside }
}

const run = (args: Record<string, unknown>, options: ToolArgs.PathOptions) =>
  ToolArgs.requirePath(args as JsonValue.JsonObject, "path", options).pipe(Effect.either, Effect.provide(NodeContext.layer))

const refused = (r: Either.Either<string, ToolEnvelope.Failure>): ToolEnvelope.Failure => {
  assert.isTrue(Either.isLeft(r), JSON.stringify(r))
  return (r as Either.Left<ToolEnvelope.Failure, string>).left
}

/** Every file under `dir`, recursively (links not followed). */
const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)])

describe("ToolArgs.requirePath", () => {
  it.effect("accepts a path inside the root and answers its real path, links resolved", () =>
    Effect.gen(function*() {
      const { root } = sandbox()
      assert.deepStrictEqual(yield* run({ path: "a/file.txt" }, { roots: [root] }), Either.right(path.join(root, "a", "file.txt")))
      assert.deepStrictEqual(yield* run({ path: "in/file.txt" }, { roots: [root] }), Either.right(path.join(root, "a", "file.txt")))
      assert.deepStrictEqual(yield* run({ path: "a/new/deeper.txt" }, { roots: [root] }), Either.right(path.join(root, "a", "new", "deeper.txt")))
      assert.deepStrictEqual(yield* run({ path: path.join(root, "a") }, { roots: [root] }), Either.right(path.join(root, "a")))
      assert.deepStrictEqual(yield* run({ path: "." }, { roots: [root] }), Either.right(root))
    }))

  it.effect("refuses traversal, dangerous characters and links out of the root, naming the reason", () =>
    Effect.gen(function*() {
      const { outside, root } = sandbox()
      const options = { roots: [root], tool: "read_file" }
      const traversal = refused(yield* run({ path: "a/../../outside" }, options))
      assert.deepStrictEqual(traversal, {
        ok: false,
        kind: "invalid_args",
        message: "Argument `path` is rejected: path traversal (`..`) is not allowed.",
        field: "path",
        expected: `a path inside ${JSON.stringify(root)}`,
        tool: "read_file",
        retryable: true
      })
      assert.strictEqual(refused(yield* run({ path: "a\\..\\x" }, options)).message, "Argument `path` is rejected: path traversal (`..`) is not allowed.")
      assert.strictEqual(refused(yield* run({ path: "a/file.txt\u0000.png" }, options)).message, "Argument `path` is rejected: it holds a dangerous character (U+0000 at index 10).")
      for (const bad of ["a\nb", "a\u001bb", "a\u202egnp.exe", "a\u0085", "\ud800x"]) {
        assert.include(refused(yield* run({ path: bad }, options)).message, "dangerous character")
      }
      for (const out of ["out", "out/secret", "abs/x", "dangling", "dangling2", "up", "up/outside", outside, "/etc/passwd"]) {
        assert.strictEqual(refused(yield* run({ path: out }, options)).message, "Argument `path` is rejected: it resolves outside the allowed roots.", out)
      }
      assert.strictEqual(refused(yield* run({ path: "loop/x" }, options)).message, "Argument `path` is rejected: it passes through too many symbolic links.")
      assert.include(refused(yield* run({ path: "a/".repeat(3000) }, options)).message, "longer than 4096")
    }))

  it.effect("missing, empty or non-string arguments and unusable roots are typed failures", () =>
    Effect.gen(function*() {
      const { root } = sandbox()
      assert.strictEqual(refused(yield* run({}, { roots: [root] })).message, "Missing required argument `path` (string).")
      assert.strictEqual(refused(yield* run({ path: "" }, { roots: [root] })).message, "Argument `path` must not be empty.")
      assert.strictEqual(refused(yield* run({ path: 7 }, { roots: [root] })).kind, "invalid_args")
      const { proxy, revoke } = Proxy.revocable([], {})
      revoke()
      for (const roots of [[], [""], ["a\u0000"], proxy, undefined, new Proxy([root], { get: () => { throw new Error("trap") } })]) {
        const f = refused(yield* run({ path: "a" }, { roots } as unknown as ToolArgs.PathOptions))
        assert.strictEqual(f.kind, "execution_error")
        assert.isFalse(f.retryable)
      }
    }))

  it.effect("a root reached through a link counts by its real path; several roots", () =>
    Effect.gen(function*() {
      const { outside, root, top } = sandbox()
      fs.symlinkSync(root, path.join(top, "rootlink"))
      assert.deepStrictEqual(yield* run({ path: "a" }, { roots: [path.join(top, "rootlink")] }), Either.right(path.join(root, "a")))
      assert.deepStrictEqual(yield* run({ path: "out/z" }, { roots: [root, outside] }), Either.right(path.join(outside, "z")))
    }))

  it.effect("in a tool: a refusal is the call's answer, an accepted path is read", () =>
    Effect.gen(function*() {
      const { root } = sandbox()
      const read = Tool.make("read_file", {
        description: "Reads a file under the root.",
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        execute: (args) =>
          ToolArgs.requirePath(args as JsonValue.JsonObject, "path", { roots: [root], tool: "read_file" }).pipe(
            Effect.map((real) => ToolEnvelope.file(real, fs.readFileSync(real, "utf8"))),
            // the failure envelope is the answer: an executor that returns an envelope is answered with it
            Effect.catchAll(Effect.succeed),
            Effect.provide(NodeContext.layer)
          )
      })
      const run = (args: JsonValue.JsonObject) =>
        Tool.run(read, { _tag: "Prepared", tool: "read_file", callId: "c", raw: args, value: args, coercions: [], args })
      const ok = yield* run({ path: "in/file.txt" })
      assert.deepStrictEqual(ok, ToolEnvelope.file(path.join(root, "a", "file.txt"), "x", { tool: "read_file" }))
      const refused = yield* run({ path: "out/secret" })
      assert.deepStrictEqual([refused.ok, !refused.ok && refused.kind, !refused.ok && refused.field], [false, "invalid_args", "path"])
    }))

  const segment = fc.constantFrom("a", "b", "file.txt", "in", "out", "abs", "dangling", "dangling2", "deep", "loop", "up", ".", "..", "", "new", "x y", "%2e%2e", "…")
  const hostile = fc.oneof(
    fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => s.join("/")),
    fc.tuple(fc.constantFrom("/", "//", "./"), fc.array(segment, { maxLength: 5 })).map(([lead, s]) => lead + s.join("/")),
    fc.string({ maxLength: 12, unit: "grapheme-composite" })
  )

  it.live.prop("no accepted path lands outside the root, even when the tool writes through it", [hostile], ([input]) =>
    Effect.gen(function*() {
      const { outside, root } = sandbox()
      const result = yield* run({ path: input }, { roots: [root] })
      if (Either.isLeft(result)) return
      const accepted = result.right
      // what a tool does with it: create it (parents too) unless it is there
      if (!fs.existsSync(accepted)) {
        try {
          fs.mkdirSync(path.dirname(accepted), { recursive: true })
          fs.writeFileSync(accepted, "written")
        } catch {
          // a file on the way (ENOTDIR) or a directory name: nothing was created
        }
      }
      assert.deepStrictEqual(filesUnder(outside), [], `${JSON.stringify(input)} → ${accepted}`)
      if (fs.existsSync(accepted)) {
        const real = fs.realpathSync.native(accepted)
        assert.isTrue(real === root || real.startsWith(root + path.sep), `${JSON.stringify(input)} → ${real}`)
      }
    }), { timeout: 120_000, fastCheck: { numRuns: 120 } })
})
