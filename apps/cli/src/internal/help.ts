/**
 * The `--help` pages, built from the commands' own help documents with three repairs @effect/cli 0.77 does
 * not make: a subcommand's usage reads `$ toolgate check …` (not `$ check …`); an option's entry is its
 * description and default, without the type's stock sentence ("A user-defined piece of text."); and the
 * built-in options are listed once, under GLOBAL OPTIONS, without `--wizard` (a prompt-driven mode this
 * command line does not offer).
 *
 * @internal
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"

/** The built-in options are listed by `globalOptions`, not by @effect/cli on every page. */
const config = CliConfig.make({ showBuiltIns: false })

/** A help document's blocks in reading order (sequences flattened). */
const blocks = (doc: HelpDoc.HelpDoc): Array<HelpDoc.HelpDoc> =>
  doc._tag === "Sequence" ? [...blocks(doc.left), ...blocks(doc.right)] : doc._tag === "Empty" ? [] : [doc]

/** Whether a block is @effect/cli's "This setting is optional." (our descriptions say what the default is). */
const isOptionalNote = (block: HelpDoc.HelpDoc): boolean =>
  block._tag === "Paragraph" && Span.isText(block.value) && block.value.value.startsWith("This setting is optional.")

/**
 * An option's or argument's entry without its first paragraph, which @effect/cli fills with the type's
 * stock sentence, and without its "This setting is optional." (each description states its default).
 */
const withoutTypeSentence = (entry: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  const [first, ...rest] = blocks(entry)
  return HelpDoc.blocks((first?._tag === "Paragraph" ? rest : blocks(entry)).filter((block) => !isOptionalNote(block)))
}

/** `doc` with every description list's entries repaired (see `withoutTypeSentence`). */
const repaired = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "DescriptionList": {
      const [head, ...tail] = doc.definitions.map(([span, entry]): [Span.Span, HelpDoc.HelpDoc] => [span, withoutTypeSentence(entry)])
      return HelpDoc.descriptionList([head!, ...tail])
    }
    case "Sequence":
      return HelpDoc.sequence(repaired(doc.left), repaired(doc.right))
    default:
      return doc
  }
}

const option = (names: string, description: string): [Span.Span, HelpDoc.HelpDoc] => [Span.strong(names), HelpDoc.p(description)]

/** The options every command takes (the built-ins of @effect/cli this command line offers). */
const globalOptions = HelpDoc.sequence(
  HelpDoc.h1("GLOBAL OPTIONS"),
  HelpDoc.descriptionList([
    option("--log-level all | trace | debug | info | warning | error | fatal | none", "the least severe log line to print; default: info"),
    option("-h, --help", "print this help"),
    option("--version", "print the version"),
    option("--completions sh | bash | fish | zsh", "print a completion script for the shell")
  ])
)

const usageLines = (lines: ReadonlyArray<Span.Span>): HelpDoc.HelpDoc =>
  HelpDoc.blocks([HelpDoc.h1("USAGE"), ...lines.map((line) => HelpDoc.p(Span.concat(Span.text("$ "), line)))])

/** Where a subcommand sits: under another (`sessions` for `sessions list`), and the subcommands it has. */
export interface Nesting {
  /** The name of the command it is a subcommand of, when it is not the root's. */
  readonly parent?: string
  /** Its own subcommands (a command that only groups them, such as `sessions`). */
  readonly children?: ReadonlyArray<Descriptor.Command<unknown>>
}

const usageOf = (command: Descriptor.Command<unknown>, prefix: string): Array<Span.Span> =>
  Usage.enumerate(Descriptor.getUsage(command), config).map((span) => Span.concat(Span.text(`${prefix} `), span))

/**
 * The help page of the root command (`command`), or of its subcommand `sub`, as ANSI text; a command that
 * groups subcommands lists each one's usage.
 */
export const page = (
  name: string,
  version: string,
  root: Descriptor.Command<unknown>,
  sub: Descriptor.Command<unknown> | undefined,
  nesting: Nesting = {}
): string => {
  const header = HelpDoc.blocks([HelpDoc.h1(Span.code(name)), HelpDoc.p(`${name} ${version}`)])
  const prefix = nesting.parent === undefined ? name : `${name} ${nesting.parent}`
  const children = nesting.children ?? []
  const body = sub === undefined
    ? HelpDoc.blocks([
      usageLines([Span.text(`${name} <command> [options]`), Span.text(`${name} <command> --help`)]),
      repaired(Descriptor.getHelp(root, config))
    ])
    : HelpDoc.blocks([
      usageLines(
        children.length === 0
          ? usageOf(sub, prefix)
          : [...children.flatMap((child) => usageOf(child, `${prefix} ${Array.from(Descriptor.getNames(sub))[0]}`)), Span.text(`${prefix} ${Array.from(Descriptor.getNames(sub))[0]} <command> --help`)]
      ),
      repaired(Descriptor.getHelp(sub, config))
    ])
  return HelpDoc.toAnsiText(HelpDoc.blocks([header, body, globalOptions]))
}
