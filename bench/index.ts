/**
 * `npm run bench`: every suite, ratios against a baseline measured in the same run, written to
 * `bench/results.json` so figures can be compared over time. Exits non-zero when a target is missed.
 * `npx tsx --conditions=@toolgate/source bench/index.ts turn relay` runs only the suites named (results.json
 * is then left as it is); `BENCH_ROUNDS=2` shortens the turn and relay suites while developing.
 */
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import * as DriftGate from "./driftGate.js"
import * as EventContract from "./eventContract.js"
import * as Normalize from "./normalize.js"
import * as Prepare from "./prepare.js"
import * as Relay from "./relay.js"
import * as Startup from "./startup.js"
import * as Subschema from "./subschema.js"
import * as Turn from "./turn.js"

const suites = { startup: Startup, prepare: Prepare, normalize: Normalize, subschema: Subschema, driftGate: DriftGate, eventContract: EventContract, turn: Turn, relay: Relay }

const names = process.argv.slice(2)
const unknown = names.filter((n) => !Object.hasOwn(suites, n))
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(", ")}; suites: ${Object.keys(suites).join(", ")}`)
  process.exit(2)
}
const selected = names.length === 0 ? Object.values(suites) : names.map((n) => suites[n as keyof typeof suites])

const outcomes = []
for (const suite of selected) outcomes.push(await suite.run())

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
