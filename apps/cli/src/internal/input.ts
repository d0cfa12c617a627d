/**
 * What a command reads from its user: a JSON value given as a file (`--NAME FILE`, an @effect/cli file
 * option) or inline (`--NAME-json TEXT`, a separate option), so a file called `01-string-integers.json` is
 * always a file and `{"type":"object"}` always JSON. Input that cannot be used is a `BadInput`.
 *
 * @internal
 */
import * as Options from "@effect/cli/Options"
import * as BoundedFile from "@toolgate/relay/BoundedFile"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** Input the command cannot use: an unreadable file, a schema that is not JSON, a missing option. */
export class BadInput extends Schema.TaggedError<BadInput>()("BadInput", { message: Schema.String }) {}

/** A value given as a file, inline, both or neither (as parsed; `given` decides). */
export interface Given {
  readonly file: Option.Option<string>
  readonly inline: Option.Option<string>
}

/** Text the user gave, and where it came from (the file's path, or the inline option's name). */
export interface Text {
  readonly text: string
  readonly origin: string
}

/**
 * The options `--NAME FILE` and `--NAME-json JSON` for one value (`what` describes it in the help; `need`
 * says whether one of the two is required, or what happens without either).
 */
export const fileOrInline = (name: string, what: string, need: string, inlineWhat = "inline JSON"): Options.Options<Given> =>
  Options.all({
    file: Options.file(name).pipe(
      Options.optional,
      Options.withDescription(`${what}: the path of a JSON file. ${need}`)
    ),
    inline: Options.text(`${name}-json`).pipe(
      Options.optional,
      Options.withDescription(`${what} as ${inlineWhat}, instead of --${name}. ${need}`)
    )
  })

/** Reads the file at `path` (given by the user for `what`) with `BoundedFile.read`: a regular file of at most 64 MiB. */
export const readFile = (path: string, what: string) =>
  Effect.mapError(BoundedFile.read(path), (e) => new BadInput({ message: `The ${what} file ${path} ${e.reason}.` }))

/** How the two ways to give a value are named in messages: `--NAME FILE` and `--NAME-json JSON` by default. */
export interface Flags {
  readonly file: string
  readonly inline: string
}

/** The flags of the options `fileOrInline(name, …)` makes. */
export const flags = (name: string): Flags => ({ file: `--${name} FILE`, inline: `--${name}-json JSON` })

/** The text of a value given once at most: none, the inline text, or the file's contents. */
export const given = (what: string, value: Given, named: Flags) =>
  Effect.gen(function*() {
    if (Option.isSome(value.file) && Option.isSome(value.inline)) {
      return yield* new BadInput({ message: `Give the ${what} either as a file (${named.file}) or inline (${named.inline}), not both.` })
    }
    if (Option.isSome(value.inline)) return Option.some<Text>({ text: value.inline.value, origin: `${named.inline.split(" ")[0]} (inline)` })
    if (Option.isNone(value.file)) return Option.none<Text>()
    return Option.some<Text>({ text: yield* readFile(value.file.value, what), origin: value.file.value })
  })

/** The text of a value that must be given: as a file or inline. */
export const required = (what: string, value: Given, named: Flags) =>
  given(what, value, named).pipe(
    Effect.flatMap(Option.match({
      onNone: () => new BadInput({ message: `Give the ${what}: ${named.file} or ${named.inline}.` }),
      onSome: Effect.succeed
    }))
  )

/** Parses JSON text, failing with `BadInput` that names what it was. */
export const parseJson = (text: string, what: string) =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (e) => new BadInput({ message: `The ${what} is not valid JSON: ${(e as Error).message}` })
  })

/**
 * The positional file arguments given. @effect/cli hands an option it does not know (and every option after
 * it) to optional positional arguments, so a value starting with `-` is a command-line mistake, never a
 * file (a file named so is given as `./-name`); `json` says whether `--json` was among those swallowed.
 */
export const positional = (values: ReadonlyArray<Option.Option<string>>) => {
  const given = values.flatMap((value) => Option.toArray(value))
  const options = given.filter((value) => value.startsWith("-"))
  return {
    files: given,
    json: options.includes("--json"),
    mistake: options.length === 0 ? undefined : new BadInput({ message: `Received unknown argument: ${options.filter((o) => o !== "--json").join(", ") || options[0]}.` })
  }
}
