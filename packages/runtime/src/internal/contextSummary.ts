/**
 * What the model is told about the turns a request leaves out to fit the provider's context window: a
 * short, deterministic summary of them (what the user asked, which tools answered how, what was answered),
 * so the model knows earlier context existed and what it was about. It is built from history alone (no
 * model call; a listing is named as `<N> entries in <path>`), bounded in size whatever the history holds, and rides the system prompt (or the user
 * message's preamble for a backend that manages its own system prompt).
 *
 * @internal
 */
import { Text } from "@toolgate/json-schema"
import type * as Message from "../Message.js"
import * as TaskState from "../TaskState.js"

/** A listing result in words: `<N> entries in <path>` (`undefined` for any other result). */
export const listingLine = (envelope: Message.ToolResult["envelope"]): string | undefined => {
  if (!envelope.ok) return undefined
  const state = TaskState.classify(envelope)
  switch (state._tag) {
    case "EmptyListing":
      return `0 entries in ${state.path}`
    case "PartialListing":
    case "PopulatedListing":
      return `${state.entryCount} ${state.entryCount === 1 ? "entry" : "entries"} in ${state.path}`
    default:
      return undefined
  }
}

/**
 * An old listing result as the window keeps it: its result collapsed to `{ text: "<N> entries in <path>" }`
 * (the entries dropped; the model lists the directory again to descend). `undefined` for any other message.
 */
export const collapseListing = (message: Message.Message): Message.ToolResult | undefined => {
  if (message._tag !== "ToolResult") return undefined
  const line = listingLine(message.envelope)
  if (line === undefined || !message.envelope.ok) return undefined
  const tool = message.envelope.tool
  return { ...message, envelope: { ok: true, ...(tool === undefined ? {} : { tool }), result: { text: line } } }
}

/** The most omitted turns listed one by one (the most recent ones); older ones are counted. */
const maxListed = 12

/** The most characters of one quoted text. */
const maxQuote = 160

/** One text as a short quote on one line. */
const quote = (text: string): string => {
  return JSON.stringify(Text.clip(text.replace(/\s+/g, " ").trim(), maxQuote))
}

/** One omitted turn (a User message and what followed it) as one line. */
const turnLine = (turn: ReadonlyArray<Message.Message>): string => {
  const asked = turn[0]?._tag === "User" ? `the user said ${quote(turn[0].text)}` : "the conversation went on"
  const outcomes = new Map<string, Array<string>>()
  let answer = ""
  for (const message of turn) {
    if (message._tag === "ToolResult") {
      const seen = outcomes.get(message.name) ?? []
      seen.push(message.envelope.ok ? listingLine(message.envelope) ?? "ok" : message.envelope.kind)
      outcomes.set(message.name, seen)
    } else if (message._tag === "Assistant" && message.text.trim() !== "") answer = message.text
  }
  const tools = Array.from(outcomes, ([name, results]) => `${name} (${results.join(", ")})`).slice(0, 6)
  return `- ${asked}${tools.length === 0 ? "" : `; tools: ${tools.join(", ")}`}${answer === "" ? "" : `; you answered ${quote(answer)}`}`
}

/** `omitted` split into turns, each starting at a User message (a leading partial turn is one turn too). */
const turnsOf = (omitted: ReadonlyArray<Message.Message>): Array<ReadonlyArray<Message.Message>> => {
  const turns: Array<Array<Message.Message>> = []
  for (const message of omitted) {
    if (message._tag === "User" || turns.length === 0) turns.push([message])
    else turns[turns.length - 1]!.push(message)
  }
  return turns
}

/** The summary of the messages a request leaves out, or `undefined` when it leaves none out. */
export const summarize = (omitted: ReadonlyArray<Message.Message>): string | undefined => {
  if (omitted.length === 0) return undefined
  const turns = turnsOf(omitted)
  const listed = turns.slice(-maxListed)
  const earlier = turns.length - listed.length
  return [
    `Context summary: ${turns.length === 1 ? "the earliest turn of this conversation is" : `the ${turns.length} earliest turns of this conversation are`} ` +
    "left out of the messages to fit the context window. In order:",
    ...(earlier === 0 ? [] : [`- (${earlier} earlier ${earlier === 1 ? "turn" : "turns"} not listed)`]),
    ...listed.map(turnLine)
  ].join("\n")
}
