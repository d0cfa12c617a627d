import * as FileSystem from "@effect/platform/FileSystem"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** Input the command cannot use: an unreadable file, a schema that is not JSON. Exit code 2. */
export class BadInput extends Data.TaggedError("BadInput")<{ readonly message: string }> {}

const looksInline = (value: string): boolean => /^\s*[[{"]|^\s*(true|false|null|-?\d)/.test(value)

/**
 * The text behind a command-line value: the value itself when it looks like inline JSON, otherwise the
 * contents of the file it names.
 */
export const textOf = (value: string, what: string) =>
  looksInline(value)
    ? Effect.succeed(value)
    : Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(value)).pipe(
      Effect.mapError((e) => new BadInput({ message: `Cannot read ${what} file ${value}: ${e.message}` }))
    )

/** Parses JSON text, failing with `BadInput` that names what it was. */
export const parseJson = (text: string, what: string) =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (e) => new BadInput({ message: `The ${what} is not valid JSON: ${(e as Error).message}` })
  })
