/**
 * A server's command line, given as one string (`--server "node server.js --root /tmp"`), split into argv
 * the way a POSIX shell splits words, and nothing more: single quotes keep everything, double quotes keep
 * all but `\"`, `\\`, `\$` and `` \` ``, a backslash outside quotes keeps the next character. No variable,
 * glob, pipe or redirection is interpreted: the server is spawned without a shell.
 *
 * @internal
 */
import * as Either from "effect/Either"

/** The words of `line`, or why it cannot be split (an unclosed quote, a trailing backslash, no words). */
export const split = (line: string): Either.Either<ReadonlyArray<string>, string> => {
  const words: Array<string> = []
  let word: string | undefined
  let quote: "'" | "\"" | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote === "'") {
      if (c === "'") quote = undefined
      else word = (word ?? "") + c
    } else if (quote === "\"") {
      if (c === "\"") quote = undefined
      else if (c === "\\" && i + 1 < line.length && "\"\\$`".includes(line[i + 1]!)) word = (word ?? "") + line[++i]!
      else word = (word ?? "") + c
    } else if (c === "'" || c === "\"") {
      quote = c
      word ??= ""
    } else if (c === "\\") {
      if (i + 1 === line.length) return Either.left("it ends with a backslash")
      word = (word ?? "") + line[++i]
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else word = (word ?? "") + c
  }
  if (quote !== undefined) return Either.left(`a ${quote === "'" ? "single" : "double"} quote is not closed`)
  if (word !== undefined) words.push(word)
  return words.length === 0 ? Either.left("it names no command") : Either.right(words)
}
