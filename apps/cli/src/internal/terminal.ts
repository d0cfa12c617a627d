/**
 * Colour on a terminal, plain text everywhere else: @effect/cli writes its help and its errors with ANSI
 * styles whatever the output is, so every line the command prints passes through one console that drops
 * them when the stream is not a terminal, when `NO_COLOR` is set (https://no-color.org), or when
 * `TERM=dumb`.
 *
 * @internal
 */
import * as Console from "effect/Console"
import type * as Effect from "effect/Effect"

/** Whether a stream may carry colour: a terminal, without `NO_COLOR`, and not `TERM=dumb`. */
export const colorful = (stream: { readonly isTTY?: boolean | undefined }, env: Readonly<Record<string, string | undefined>>): boolean =>
  stream.isTTY === true && (env["NO_COLOR"] ?? "") === "" && env["TERM"] !== "dumb"

// Control Sequence Introducer sequences (SGR styles, cursor moves): what @effect/printer-ansi writes.
// eslint-disable-next-line no-control-regex
const csi = /\u001b\[[0-9;?]*[A-Za-z]/g

/** `text` without its ANSI escape sequences. */
export const plain = (text: string): string => text.includes("\u001b") ? text.replace(csi, "") : text

const plainArgs = (args: ReadonlyArray<unknown>): Array<unknown> => args.map((a) => typeof a === "string" ? plain(a) : a)

/** The console `base` with ANSI escapes dropped from what goes to a stream that may not carry colour. */
export const console = (base: Console.Console, color: { readonly stdout: boolean; readonly stderr: boolean }): Console.Console => {
  const unsafe = base.unsafe
  return {
    ...base,
    log: (...args) => base.log(...(color.stdout ? args : plainArgs(args))),
    info: (...args) => base.info(...(color.stdout ? args : plainArgs(args))),
    error: (...args) => base.error(...(color.stderr ? args : plainArgs(args))),
    warn: (...args) => base.warn(...(color.stderr ? args : plainArgs(args))),
    unsafe: {
      ...unsafe,
      log: (...args) => unsafe.log(...(color.stdout ? args : plainArgs(args))),
      info: (...args) => unsafe.info(...(color.stdout ? args : plainArgs(args))),
      error: (...args) => unsafe.error(...(color.stderr ? args : plainArgs(args))),
      warn: (...args) => unsafe.warn(...(color.stderr ? args : plainArgs(args)))
    }
  }
}

/** Runs `effect` with the console that honours `color`. */
export const withColor = (color: { readonly stdout: boolean; readonly stderr: boolean }) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((base) => Console.withConsole(effect, console(base, color)))
