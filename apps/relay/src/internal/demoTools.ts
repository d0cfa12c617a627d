/**
 * The demo app's tools as JSON Schemas: the two local tools every scenario uses, and the larger toolkit of
 * four domains (eight tools) the tool discovery scenario activates from.
 *
 * @internal
 */
import type { JsonSchema } from "@toolgate/json-schema"

/** A local tool of the demo app: its name, what it does, and its parameter schema. */
export interface LocalTool {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
}

/** The weather tool every weather scenario calls. */
export const getWeather: LocalTool = {
  name: "get_weather",
  description: "The weather in a city for the next few days.",
  parameters: {
    type: "object",
    properties: {
      city: { type: "string", minLength: 1 },
      units: { enum: ["metric", "imperial"] },
      days: { type: "integer", minimum: 1, maximum: 16 }
    },
    required: ["city"],
    additionalProperties: false
  }
}

/**
 * The forecast tool of the Gemini-wire scenario: the same weather, in a schema Google's dialect must rewrite
 * (a `$ref` into `$defs`, `const` variants, `additionalProperties`, bounds Google does not take).
 */
export const getForecast: LocalTool = {
  name: "get_forecast",
  description: "The forecast for a city, day by day.",
  parameters: {
    type: "object",
    $defs: { units: { anyOf: [{ const: "metric", description: "°C" }, { const: "imperial", description: "°F" }] } },
    properties: {
      city: { type: "string", minLength: 1 },
      days: { type: "integer", minimum: 1, maximum: 16 },
      units: { $ref: "#/$defs/units" }
    },
    required: ["city", "days"],
    additionalProperties: false
  }
}

/** Where the user is (the chaining scenario reads its `result.city`). */
export const locateUser: LocalTool = {
  name: "locate_user",
  description: "The city the user is in.",
  parameters: { type: "object", properties: {}, additionalProperties: false }
}

/** A tool of the larger toolkit that no scenario runs (the model only needs to see it offered, or not). */
const other = (name: string, description: string, properties: Record<string, JsonSchema.JsonSchema>): LocalTool => ({
  name,
  description,
  parameters: { type: "object", properties, required: Object.keys(properties), additionalProperties: false }
})

const text = { type: "string", minLength: 1 } as const

/** The demo app's larger toolkit, by domain: eight tools, more than a small model's `maxTools`. */
export const domainTools: Readonly<Record<string, ReadonlyArray<LocalTool>>> = {
  weather: [getWeather, other("get_air_quality", "The air quality index in a city.", { city: text })],
  location: [locateUser, other("find_places", "Places of a kind near the user.", { kind: text })],
  calendar: [
    other("list_events", "The user's calendar events on a day.", { date: { type: "string", format: "date" } }),
    other("create_event", "Adds an event to the user's calendar.", { title: text, date: { type: "string", format: "date" } })
  ],
  mail: [
    other("send_email", "Sends an email.", { to: text, subject: text, body: { type: "string" } }),
    other("search_mail", "Searches the user's mailbox.", { query: text })
  ]
}
