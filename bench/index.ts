/**
 * `npm run bench`: every suite, ratios against a baseline measured in the same run, written to
 * `bench/results.json` so figures can be compared over time. Exits non-zero when a target is missed.
 * It measures the packages as built (`tsc -b` first), what an app installs: run from source through tsx,
 * every closure made at run time also gets esbuild's `__name` call, which doubles the cost of some passes.
 * Each suite runs in a process of its own, so no suite is measured on the heap an earlier one left (a
 * suite's candidates and their peers still share one process, interleaved).
 * `npm run bench -- turn relay` runs only the suites named (results.json is then left as it is);
 * `BENCH_ROUNDS=2` shortens the turn and relay suites while developing.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { Result } from "./harness.js"

interface Outcome {
  readonly results: ReadonlyArray<Result>
  readonly met: boolean
}

/** The suites, imported only by the process that runs them (a module's own set-up is part of its heap). */
const suites: Record<string, () => Promise<{ readonly run: () => Promise<Outcome> }>> = {
  startup: () => import("./startup.js"),
  prepare: () => import("./prepare.js"),
  normalize: () => import("./normalize.js"),
  subschema: () => import("./subschema.js"),
  driftGate: () => import("./driftGate.js"),
  eventContract: () => import("./eventContract.js"),
  stream: () => import("./stream.js"),
  turn: () => import("./turn.js"),
  relay: () => import("./relay.js"),
  store: () => import("./store.js")
}

/** Where a suite run as a child process writes its outcome (set by the parent). */
const outcomeFile = process.env["TOOLGATE_BENCH_OUTCOME"]

/** Runs one suite in a fresh process (same node flags and loader as this one) and reads back its outcome. */
const runIsolated = (name: string, dir: string): Outcome => {
  const file = join(dir, `${name}.json`)
  const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, name], {
    stdio: "inherit",
    env: { ...process.env, TOOLGATE_BENCH_OUTCOME: file }
  })
  // a suite that missed a target exits 1 after writing its outcome; one that crashed writes none
  if (!existsSync(file)) throw new Error(`suite ${name} did not finish (exit ${child.status ?? child.signal})`)
  return JSON.parse(readFileSync(file, "utf8")) as Outcome
}

const names = process.argv.slice(2)
const unknown = names.filter((n) => !Object.hasOwn(suites, n))
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(", ")}; suites: ${Object.keys(suites).join(", ")}`)
  process.exit(2)
}

if (outcomeFile !== undefined) {
  // a child: one suite, its outcome written where the parent reads it
  const outcome = await (await suites[names[0]!]!()).run()
  writeFileSync(outcomeFile, JSON.stringify({ results: outcome.results, met: outcome.met }))
  process.exitCode = outcome.met ? 0 : 1
} else {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"))
  const outcomes: Array<Outcome> = []
  try {
    for (const name of names.length === 0 ? Object.keys(suites) : names) outcomes.push(runIsolated(name, dir))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const results = outcomes.flatMap((o) => o.results)
  if (names.length === 0) {
    writeFileSync(
      resolve(import.meta.dirname, "results.json"),
      JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2) + "\n"
    )
  }
  const met = outcomes.every((o) => o.met)
  const where = names.length === 0 ? "results in bench/results.json" : "a subset: bench/results.json left as it is"
  console.log(`\n${met ? "all targets met" : "some targets missed (see ✘ above)"}; ${where}`)
  process.exitCode = met ? 0 : 1
}
