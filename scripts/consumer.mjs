// The consumer test: toolgate as an app outside this repository gets it. Packs every workspace package,
// installs the tarballs into a fresh app whose `effect` is pinned to another 3.22 patch than the
// workspace's, then checks, step by step: what the tarballs hold, a plain-node import of every package,
// `tsc` on the repository README's app under NodeNext and under Bundler (skipLibCheck false), exactly one
// `effect` in the app's tree, that README app running with plain node, `@toolgate/sql` round-tripping a
// session through a SQLite file, and the CLI tarball installed into a temporary global prefix (`toolgate
// --version`, `toolgate check`, `toolgate sessions list` on that file). better-sqlite3's native addon comes
// from the workspace's own build, handed to its installer as a local prebuild, so neither install compiles
// it. A failure names its step; exit 1.
//
//   node scripts/consumer.mjs [--keep]     (npm run test:consumer; needs the npm registry)
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)))
const work = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-consumer-"))
const keep = process.argv.includes("--keep")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

let current = "start"
const step = (name, run) => {
  current = name
  const started = Date.now()
  const detail = run()
  console.log(`consumer: ✔ ${name}${detail ? ` (${detail})` : ""} ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
const sh = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024, timeout: 600_000, ...options })
const json = (file) => JSON.parse(fs.readFileSync(file, "utf8"))
const write = (file, text) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}
const fail = (message) => {
  throw new Error(message)
}

const workspaces = ["packages/json-schema", "packages/subschema", "packages/runtime", "packages/providers", "packages/ai", "packages/ai-sdk", "packages/sql", "packages/mcp", "apps/relay", "apps/cli"]
const manifests = workspaces.map((dir) => json(path.join(root, dir, "package.json")))
const workspaceEffect = json(path.join(root, "node_modules/effect/package.json")).version
// another patch of the same minor than the workspace's (3.22.4 in the workspace → 3.22.3 here)
const [major, minor, patch] = workspaceEffect.split(".").map(Number)
const pinnedEffect = `${major}.${minor}.${patch > 2 ? patch - 1 : patch + 1}`
const tarballs = path.join(work, "tarballs")
const app = path.join(work, "app")
const prefix = path.join(work, "global")
const tarballOf = new Map()
const prebuilds = path.join(work, "prebuilds")
// prebuild-install (better-sqlite3's installer) looks in this folder before it downloads or compiles
const installEnv = { ...process.env, npm_config_better_sqlite3_local_prebuilds: prebuilds }
const sessionsFile = path.join(work, "sessions.sqlite")
// a compiled better-sqlite3 leaves node-gyp's Makefile beside its addon; one from a prebuild does not
const sqliteBuild = (dir) => fs.existsSync(path.join(dir, "build/Makefile")) ? "better-sqlite3 compiled from source" : "better-sqlite3 from the prebuild"

try {
  step("build (tsc -b and the CLI bundle) from empty dist/ folders", () => {
    // a module moved or removed leaves its old output in dist/, which npm pack would ship
    for (const dir of workspaces) {
      fs.rmSync(path.join(root, dir, "dist"), { recursive: true, force: true })
      fs.rmSync(path.join(root, dir, "tsconfig.build.tsbuildinfo"), { force: true })
    }
    sh(npm, ["run", "build"], { cwd: root })
  })

  step("npm pack every workspace package", () => {
    fs.mkdirSync(tarballs, { recursive: true })
    // the published workspaces only: packages/test-support is a private workspace for tests, never packed
    const selected = workspaces.flatMap((dir) => ["--workspace", dir])
    const packed = JSON.parse(sh(npm, ["pack", ...selected, "--json", "--pack-destination", tarballs], { cwd: root }))
    for (const entry of packed) {
      tarballOf.set(entry.name, path.join(tarballs, entry.filename))
      const files = entry.files.map((f) => f.path)
      const bad = files.filter((f) => /(^|\/)(test|tests)\//.test(f) || /tsconfig|vitest|\.tsbuildinfo$/.test(f))
      if (bad.length > 0) fail(`${entry.name} ships ${bad.join(", ")}`)
      for (const needed of ["dist/index.js", "dist/index.d.ts", "dist/index.js.map", "LICENSE", "README.md"]) {
        if (!files.includes(needed)) fail(`${entry.name} does not ship ${needed}`)
      }
    }
    // the prover ships on its own: an app that only validates installs no prover and no automata library
    const validation = packed.find((entry) => entry.name === "@toolgate/json-schema")
    if (validation?.files.some((f) => /(^|\/)(Subschema|subschema|patternAutomata)/.test(f.path))) fail("@toolgate/json-schema ships the prover")
    if (manifests.find((m) => m.name === "@toolgate/json-schema").dependencies?.refa !== undefined) fail("@toolgate/json-schema depends on refa")
    for (const manifest of manifests) {
      if (!tarballOf.has(manifest.name)) fail(`${manifest.name} was not packed`)
      if (manifest.private) fail(`${manifest.name} is private`)
    }
    return `${packed.length} tarballs`
  })

  step("a better-sqlite3 prebuild from the workspace's own build (the installs below compile nothing)", () => {
    const sqlite = path.join(root, "node_modules/better-sqlite3")
    const version = json(path.join(sqlite, "package.json")).version
    // prebuild-install's name for it: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz (glibc: no libc part)
    const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
    fs.mkdirSync(prebuilds, { recursive: true })
    sh("tar", ["-czf", path.join(prebuilds, name), "-C", sqlite, "build/Release/better_sqlite3.node"])
    return name
  })

  step(`install the tarballs into a fresh app with effect@${pinnedEffect} (the workspace has ${workspaceEffect})`, () => {
    if (pinnedEffect === workspaceEffect) fail("the pinned effect must differ from the workspace's")
    write(path.join(app, "package.json"), JSON.stringify({
      name: "toolgate-consumer",
      private: true,
      type: "module",
      dependencies: {
        effect: pinnedEffect,
        ...Object.fromEntries(manifests.filter((m) => m.name !== "@toolgate/cli").map((m) => [m.name, `file:${tarballOf.get(m.name)}`])),
        "@effect/platform": manifests.find((m) => m.name === "@toolgate/runtime").peerDependencies["@effect/platform"],
        "@effect/platform-node": manifests.find((m) => m.name === "@toolgate/relay").peerDependencies["@effect/platform-node"]
      },
      devDependencies: {
        typescript: json(path.join(root, "node_modules/typescript/package.json")).version,
        "@types/node": "^20.19.0",
        "@types/json-schema": "^7.0.15"
      }
    }, null, 2))
    sh(npm, ["install", "--no-audit", "--no-fund"], { cwd: app, env: installEnv })
    const installed = json(path.join(app, "node_modules/effect/package.json")).version
    if (installed !== pinnedEffect) fail(`the app got effect ${installed}`)
    return sqliteBuild(path.join(app, "node_modules/better-sqlite3"))
  })

  step("exactly one effect in the app's tree", () => {
    const copies = JSON.parse(sh(npm, ["query", "#effect"], { cwd: app }))
    const where = copies.map((c) => `${c.location}@${c.version}`)
    if (copies.length !== 1) fail(`${copies.length} copies of effect: ${where.join(", ")}`)
    return where[0]
  })

  step("import every library with plain node", () => {
    const names = manifests.filter((m) => m.name !== "@toolgate/cli").map((m) => m.name)
    const out = sh(process.execPath, ["--input-type=module", "-e", `
      for (const name of ${JSON.stringify(names)}) {
        const m = await import(name)
        if (Object.keys(m).length === 0) throw new Error(name + " exports nothing")
        console.log(name, Object.keys(m).length)
      }
      for (const internal of ["@toolgate/runtime/internal/kinds", "@toolgate/subschema/internal/subschemaModel"]) {
        try { await import(internal); throw new Error(internal + " is reachable") }
        catch (e) { if (e.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e }
      }
      const { Subschema } = await import("@toolgate/subschema")
      const verdict = Subschema.check({ type: "integer" }, { type: "number" })
      if (verdict._tag !== "Subtype") throw new Error("@toolgate/subschema answered " + JSON.stringify(verdict))
    `], { cwd: app })
    return out.trim().split("\n").join(", ")
  })

  step("@toolgate/sql: layerSqlite on a new SQLite file, a session committed, then read back by another store", () => {
    const out = sh(process.execPath, ["--input-type=module", "-e", `
      import { Context, Effect, Layer, Option } from "effect"
      import { SessionStore } from "@toolgate/runtime"
      import { SqlSessionStore } from "@toolgate/sql"
      const open = Effect.map(Layer.build(SqlSessionStore.layerSqlite({ filename: ${JSON.stringify(sessionsFile)} })), (ctx) => Context.get(ctx, SessionStore.SessionStore))
      const messages = [{ _tag: "User", text: "hello \\u{1F600}" }, { _tag: "Assistant", text: "Hi.", toolCalls: [] }]
      await Effect.runPromise(Effect.scoped(Effect.flatMap(open, (store) => store.commitTurn({ session: "consumer", turn: 1, messages, results: [] }))))
      const snapshot = await Effect.runPromise(Effect.scoped(Effect.flatMap(open, (store) => store.export("consumer"))))
      const history = Option.getOrThrow(snapshot).history
      if (JSON.stringify(history) !== JSON.stringify(messages)) throw new Error("read back " + JSON.stringify(history))
      console.log(history.length + " messages")
    `], { cwd: app })
    return out.trim()
  })

  // The repository README's app, as a newcomer would paste it.
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((code) => code.includes("AgentSession.make"))
  if (block === undefined) fail("the README has no app example (a ts block with AgentSession.make)")
  write(path.join(app, "src/app.ts"), block)
  // and every library's types, read whole (skipLibCheck is off)
  const libraries = manifests.filter((m) => m.name !== "@toolgate/cli").map((m) => m.name)
  write(path.join(app, "src/libraries.ts"), [
    ...libraries.map((name, i) => `import * as library${i} from "${name}"`),
    `export const libraries = [${libraries.map((_, i) => `library${i}`).join(", ")}]`,
    ""
  ].join("\n"))
  // The AI SDK's and @effect/ai's own declarations name DOM types (HeadersInit, Transferable, Storage) and
  // the json-schema types: an app that checks them (skipLibCheck false) needs lib DOM and @types/json-schema.
  const compilerOptions = { strict: true, target: "ES2022", lib: ["ES2022", "DOM"], types: ["node"], skipLibCheck: false }
  for (const [name, options] of [
    ["NodeNext", { module: "NodeNext", moduleResolution: "NodeNext", outDir: "out" }],
    ["Bundler", { module: "ESNext", moduleResolution: "Bundler", noEmit: true }]
  ]) {
    step(`tsc on the README app and every library under ${name}, skipLibCheck false`, () => {
      write(path.join(app, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...compilerOptions, ...options }, include: ["src"] }, null, 2))
      try {
        sh(process.execPath, [path.join(app, "node_modules/typescript/bin/tsc"), "-p", `tsconfig.${name}.json`], { cwd: app })
      } catch (e) {
        fail(`tsc reported:\n${e.stdout}${e.stderr}`)
      }
    })
  }

  step("the README app runs with plain node (one turn over HTTP against the relay)", () => {
    const result = execFileSync(process.execPath, ["out/app.js"], { cwd: app, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 })
    if (!result.includes("Proven get_weather")) fail(`unexpected output:\n${result}`)
    return result.split("\n").find((line) => line.includes("Proven"))
  })

  step("npm install -g of the packed CLI (with the library tarballs it depends on) into a temporary prefix", () => {
    sh(npm, ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", ...manifests.map((m) => tarballOf.get(m.name))], { cwd: work, env: installEnv })
    const cli = path.join(prefix, "lib/node_modules/@toolgate/cli")
    const sqlite = [path.join(cli, "node_modules/better-sqlite3"), path.join(prefix, "lib/node_modules/better-sqlite3")].find((dir) => fs.existsSync(dir))
    return sqlite === undefined ? undefined : sqliteBuild(sqlite)
  })

  const toolgate = path.join(prefix, process.platform === "win32" ? "toolgate.cmd" : "bin/toolgate")
  step("toolgate --version from the global install", () => {
    const version = sh(toolgate, ["--version"], { cwd: work }).trim()
    if (version !== manifests.find((m) => m.name === "@toolgate/cli").version) fail(`toolgate --version printed ${JSON.stringify(version)}`)
    return version
  })

  step("toolgate check on a small file from the global install", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    write(path.join(work, "check/tools.json"), JSON.stringify({ get_weather: schema }))
    write(path.join(work, "check/capabilities.json"), JSON.stringify({ capabilities_version: "1.0", tool_schemas: { get_weather: schema } }))
    const out = sh(toolgate, ["check", "--tools", "check/tools.json", "--capabilities", "check/capabilities.json"], { cwd: work })
    if (!/get_weather\s+proven/.test(out)) fail(`unexpected output:\n${out}`)
  })

  step("toolgate examples reads the examples shipped in the package", () => {
    const out = sh(toolgate, ["examples"], { cwd: work })
    if (!/7 calls:/.test(out)) fail(`unexpected output:\n${out}`)
  })

  step("toolgate sessions list on the SQLite file from the global install (better-sqlite3 loaded outside the bundle)", () => {
    const out = sh(toolgate, ["sessions", "list", "--db", sessionsFile], { cwd: work })
    if (!out.startsWith('"consumer"  turns 1  messages 2')) fail(`unexpected output:\n${out}`)
  })

  console.log("consumer: every step passed")
} catch (e) {
  const output = [e.stdout, e.stderr].filter(Boolean).join("\n").trim()
  console.error(`consumer: ✘ failed at step: ${current}\n${e.message}${output && !e.message.includes(output) ? `\n${output}` : ""}`)
  process.exitCode = 1
} finally {
  if (keep) console.log(`consumer: kept ${work}`)
  else fs.rmSync(work, { recursive: true, force: true })
}
