/**
 * How an `Outcome` reads: a short trace for a person, or one JSON object for a machine.
 *
 * @since 0.1.0
 */
import { JsonValue, Text } from "@toolgate/json-schema"
import { exitCode, type Outcome } from "./Outcome.js"

const compact = (value: unknown, max = 160): string => {
  const text = JsonValue.stringify(value) ?? "(not JSON)"
  return Text.clip(text, max)
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`

const indent = (lines: ReadonlyArray<string>, by = "  "): Array<string> => lines.map((line) => by + line)

/** The human-readable trace of one outcome. */
export const text = (outcome: Outcome, policy: string): string => {
  if (typeof outcome !== "object" || outcome === null) return "✘ bad input: not an outcome"
  switch (outcome._tag) {
    case "BadInput":
      return `✘ bad input: ${outcome.message}`
    case "Valid": {
      const lines = [
        ...(outcome.upgrades.length > 0
          ? [`schema upgraded (${plural(outcome.upgrades.length, "change")}):`,
            ...indent(outcome.upgrades.map((c) => `${c.path || "/"}: ${c.change}`))]
          : []),
        outcome.coercions.length === 0
          ? `✔ valid (${policy}), unchanged`
          : `✔ valid (${policy}) after ${plural(outcome.coercions.length, "coercion")}:`,
        ...indent(outcome.coercions.map((c) =>
          `${c.field || "(arguments)"}: ${compact(c.from, 60)} → ${c.to === undefined ? "(dropped)" : compact(c.to, 60)}  [${c.rule}]`
        )),
        `executor receives: ${compact(outcome.value, 400)}`
      ]
      return lines.join("\n")
    }
    case "Invalid":
      return [
        ...(outcome.upgrades.length > 0 ? [`schema upgraded (${plural(outcome.upgrades.length, "change")})`] : []),
        `✘ invalid (${policy}): ${plural(outcome.issues.length, "issue")}`,
        ...indent(outcome.issues.map((i) => `${i.field || "(arguments)"}: ${i.message} (expected: ${i.expected})`)),
        "fed back to the model, the executor does not run:",
        ...indent([JsonValue.stringify(outcome.envelope) ?? "(not JSON)"])
      ].join("\n")
    default:
      return "✘ bad input: not an outcome"
  }
}

/** The machine-readable form of one outcome (one JSON object, one line): its `_tag`, its exit code, then its fields. */
export const json = (outcome: Outcome, extra: Record<string, unknown> = {}): string => {
  const { _tag, ...fields } = outcome
  return JsonValue.stringify({ _tag, exitCode: exitCode(outcome), ...extra, ...fields }) ??
    JSON.stringify({ _tag: "BadInput", exitCode: 2, message: "The outcome is not JSON." })
}
