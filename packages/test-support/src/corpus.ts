/**
 * The repository's shared corpus (`corpus/`): its directory and the real tools of `tools.jsonl`, read by the
 * json-schema and runtime tests.
 */
import type { JsonValue } from "@toolgate/json-schema"
import * as fs from "node:fs"
import * as path from "node:path"

/** The shared corpus directory. */
export const corpus = path.resolve(import.meta.dirname, "../../../corpus")

/** One line of `tools.jsonl`: a real tool's published schema and the arguments models really sent it. */
export interface Tool {
  readonly source: string
  readonly name: string
  readonly parameters: unknown
  readonly examples: ReadonlyArray<JsonValue.JsonValue>
}

/** Every tool of `corpus/tools.jsonl`, in file order. */
export const tools = (): ReadonlyArray<Tool> =>
  fs.readFileSync(path.join(corpus, "tools.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Tool)
