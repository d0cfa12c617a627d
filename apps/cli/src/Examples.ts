/**
 * `toolgate examples [--dir DIR] [--policy …] [--json]`: layer 2 over a folder of real tool calls, so a
 * newcomer sees what it repairs, what it refuses, and what the model is told.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"
import { BadInput, parseJson, readFile } from "./internal/input.js"
import * as Lazy from "./internal/lazy.js"
import { badInput, jsonLine } from "./internal/output.js"
import { json, policy } from "./Validate.js"

/** One example file: a real tool's published schema and the arguments a model really sent. */
interface Example {
  readonly tool: string
  readonly source: string
  readonly note: string
  readonly schema: unknown
  readonly args: unknown
}

const isExample = (u: unknown): u is Example =>
  typeof u === "object" && u !== null && typeof (u as Example).tool === "string" &&
  typeof (u as Example).source === "string" && typeof (u as Example).note === "string" && "schema" in u

/** The examples shipped inside this package (`examples/`, beside `src/` and `dist/`). */
const shipped = fileURLToPath(new URL("../examples", import.meta.url))

const dir = Options.directory("dir").pipe(
  Options.withDefault(shipped),
  Options.withDescription("a folder of example JSON files ({ tool, source, note, schema, args }). Default: the examples shipped with toolgate.")
)

const load = Effect.fnUntraced(function*(folder: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const names = (yield* fs.readDirectory(folder).pipe(
    Effect.mapError((e) => new BadInput({ message: `Cannot read ${folder}: ${e.message}` }))
  )).filter((name) => name.endsWith(".json")).sort()
  return yield* Effect.forEach(names, (name) =>
    readFile(path.join(folder, name), `example ${name}`).pipe(
      Effect.flatMap((text) => parseJson(text, `example ${name}`)),
      Effect.filterOrFail(isExample, () => new BadInput({ message: `${name} is not { tool, source, note, schema, args }` }))
    ))
})

/** The `examples` subcommand: always exits 0 once every example ran; the summary counts the verdicts. */
export const command = Command.make("examples", { dir, policy, json }, (options) =>
  Effect.gen(function*() {
    const examples = yield* load(options.dir)
    const [Outcome, Render] = yield* Lazy.outcome
    const counts = { Valid: 0, Invalid: 0, BadInput: 0 }
    for (const example of examples) {
      const outcome = Outcome.decide({ tool: example.tool, schema: example.schema, args: example.args, policy: options.policy })
      counts[outcome._tag]++
      yield* Console.log(
        options.json
          ? Render.json(outcome, { tool: example.tool, source: example.source })
          : [
            `── ${example.tool}  (${example.source})`,
            `   ${example.note}`,
            `   model sent: ${typeof example.args === "string" ? example.args : JSON.stringify(example.args)}`,
            ...Render.text(outcome, options.policy).split("\n").map((line) => `   ${line}`),
            ""
          ].join("\n")
      )
    }
    yield* Console.log(
      options.json
        ? jsonLine({ _tag: "Summary", exitCode: 0, calls: examples.length, valid: counts.Valid, invalid: counts.Invalid, unusable: counts.BadInput })
        : `${examples.length} calls: ${counts.Valid} valid, ${counts.Invalid} invalid (fed back), ${counts.BadInput} unusable`
    )
  }).pipe(Effect.catchTag("BadInput", badInput(options, 2)))).pipe(Command.withDescription("Run layer 2 over a folder of real tool calls and show each decision. Example: toolgate examples --json"))
