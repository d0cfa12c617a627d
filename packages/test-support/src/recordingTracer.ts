/**
 * A tracer that keeps every span it starts (name and attributes), so a test can check what a session traced.
 */
import { Option, Tracer } from "effect"

/** A span as recorded: its name and attributes (set at start or later). */
export interface Recorded {
  readonly name: string
  readonly attributes: Map<string, unknown>
}

/** A fresh recording tracer and the spans it has started, in order. */
export const make = (): { readonly tracer: Tracer.Tracer; readonly spans: Array<Recorded> } => {
  const spans: Array<Recorded> = []
  let next = 0
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const attributes = new Map<string, unknown>()
      spans.push({ name, attributes })
      const id = String(next++)
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: id,
        traceId: Option.match(parent, { onNone: () => id, onSome: (p) => p.traceId }),
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes,
        links: [...links],
        sampled: true,
        kind,
        end: () => undefined,
        attribute: (key, value) => void attributes.set(key, value),
        event: () => undefined,
        addLinks: () => undefined
      }
      return span
    },
    context: (f) => f()
  })
  return { tracer, spans }
}
