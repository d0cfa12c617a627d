/**
 * Start-up of the `toolgate` command as a user meets it: `toolgate --version` as a whole process (the
 * compiled, bundled bin run by plain node), against `node -e 0` started in the same run, interleaved.
 * Target: a median of at most 0.5 s on this machine. The bin is built by `npm run build` (the install's
 * `prepare`).
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { median, type Result } from "./harness.js"

const bin = resolve(import.meta.dirname, "../apps/cli/bin/toolgate.js")
const bundle = resolve(import.meta.dirname, "../apps/cli/dist/toolgate.mjs")
const runs = 15
const targetMs = 500

const wallMs = (args: ReadonlyArray<string>): number => {
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, args, { stdio: "ignore", timeout: 30_000 })
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`)
  return Number(process.hrtime.bigint() - started) / 1e6
}

export const run = async (): Promise<{ readonly results: ReadonlyArray<Result>; readonly met: boolean }> => {
  console.log("\nstart-up: toolgate --version vs node -e 0, whole processes, interleaved")
  if (!existsSync(bundle)) {
    console.log("  ✘ apps/cli/dist/toolgate.mjs is missing: run npm run build first")
    return { results: [], met: false }
  }
  wallMs([bin, "--version"]) // warm the file cache
  const toolgate: Array<number> = []
  const node: Array<number> = []
  for (let i = 0; i < runs; i++) {
    toolgate.push(wallMs([bin, "--version"]))
    node.push(wallMs(["-e", "0"]))
  }
  const [t, n] = [median(toolgate), median(node)]
  const results: Array<Result> = [
    { suite: "startup", name: "toolgate --version", nsPerOp: t * 1e6, baseline: "node -e 0", ratio: t / n },
    { suite: "startup", name: "node -e 0", nsPerOp: n * 1e6, baseline: "node -e 0", ratio: 1 }
  ]
  console.log(`  toolgate --version   median ${t.toFixed(0)} ms (min ${Math.min(...toolgate).toFixed(0)}, max ${Math.max(...toolgate).toFixed(0)})  ${(t / n).toFixed(2)}× node -e 0`)
  console.log(`  node -e 0            median ${n.toFixed(0)} ms`)
  const met = t <= targetMs
  console.log(`  ${met ? "✔" : "✘"} toolgate --version starts in ${t.toFixed(0)} ms median (target ≤ ${targetMs} ms)`)
  return { results, met }
}
