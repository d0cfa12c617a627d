/**
 * `npm run bench`: every suite, ratios against a baseline measured in the same run, written to
 * `bench/results.json` so figures can be compared over time. Exits non-zero when a target is missed.
 */
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import * as DriftGate from "./driftGate.js"
import * as EventContract from "./eventContract.js"
import * as Normalize from "./normalize.js"
import * as Prepare from "./prepare.js"
import * as Startup from "./startup.js"
import * as Subschema from "./subschema.js"

const suites = [Startup, Prepare, Normalize, Subschema, DriftGate, EventContract]

const outcomes = []
for (const suite of suites) outcomes.push(await suite.run())

const results = outcomes.flatMap((o) => o.results)
writeFileSync(
  resolve(import.meta.dirname, "results.json"),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2) + "\n"
)
const met = outcomes.every((o) => o.met)
console.log(`\n${met ? "all targets met" : "some targets missed (see ✘ above)"}; results in bench/results.json`)
process.exitCode = met ? 0 : 1
