/** The prototype's tool as an @effect/ai toolkit, with a handler that records what it ran with. */
import { Tool, Toolkit } from "@effect/ai"
import { Effect, Schema } from "effect"

export class ForecastUnavailable extends Schema.TaggedError<ForecastUnavailable>()("ForecastUnavailable", {
  city: Schema.String
}) {
  override get message(): string {
    return `No forecast for ${this.city} right now.`
  }
}

export const GetForecast = Tool.make("get_forecast", {
  description: "Weather forecast for a city",
  parameters: {
    city: Schema.String.pipe(Schema.filter((city) => city !== "Atlantis" || "Atlantis is not a city")),
    days: Schema.Int.pipe(Schema.between(1, 16))
  },
  success: Schema.Struct({ city: Schema.String, days: Schema.Number, sky: Schema.String }),
  failure: ForecastUnavailable
})

export const Forecasts = Toolkit.make(GetForecast)

/** The handlers, recording every run; `Mordor` fails with `ForecastUnavailable`. */
export const forecasts = () => {
  const ran: Array<{ readonly city: string; readonly days: number }> = []
  const layer = Forecasts.toLayer({
    get_forecast: ({ city, days }) =>
      Effect.suspend(() => {
        ran.push({ city, days })
        return city === "Mordor" ? Effect.fail(new ForecastUnavailable({ city })) : Effect.succeed({ city, days, sky: "sunny" })
      })
  })
  return { ran, layer }
}
