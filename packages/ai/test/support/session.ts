/** A forecast tool that records what it ran with, and a helper to take a `LanguageModel` out of a layer. */
import { LanguageModel } from "@effect/ai"
import { Tool, Toolkit } from "@toolgate/runtime"
import { Context, Effect, Layer, Schema } from "effect"

/** The prototype's tool: a forecast for 1 to 16 days; `ran` holds the decoded arguments of every run. */
export const forecastTool = () => {
  const ran: Array<{ readonly city: string; readonly days: number; readonly units?: "celsius" | "fahrenheit" | undefined }> = []
  const tool = Tool.make("get_forecast", {
    description: "Weather forecast for a city",
    parameters: Schema.Struct({
      city: Schema.String,
      days: Schema.Int.pipe(Schema.between(1, 16)),
      units: Schema.optional(Schema.Literal("celsius", "fahrenheit"))
    }),
    execute: (args) => Effect.sync(() => (ran.push(args), { city: args.city, days: args.days, sky: "sunny" }))
  })
  return { ran, toolkit: Toolkit.make(tool) }
}

/** The `LanguageModel` a layer builds, for the surrounding scope. */
export const languageModel = <E>(layer: Layer.Layer<LanguageModel.LanguageModel, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, LanguageModel.LanguageModel))
