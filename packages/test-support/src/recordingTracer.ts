/**
 * A tracer that keeps every span it starts (name, kind, attributes, how it ended), so a test can check what a
 * session traced.
 */
import { type Exit, Option, Tracer } from "effect"

/** A span as recorded: its name, kind and attributes (set at start or later), and its exit once ended. */
export interface Recorded {
  readonly name: string
  readonly kind: Tracer.SpanKind
  readonly attributes: Map<string, unknown>
  /** The span's parent's name, when its parent is a span this tracer recorded. */
  readonly parent: string | undefined
  /** How the span ended (`undefined` while it is open). */
  exit: Exit.Exit<unknown, unknown> | undefined
}

/** A fresh recording tracer and the spans it has started, in order. */
export const make = (): { readonly tracer: Tracer.Tracer; readonly spans: Array<Recorded> } => {
  const spans: Array<Recorded> = []
  const names = new Map<string, string>()
  let next = 0
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const attributes = new Map<string, unknown>()
      const id = String(next++)
      names.set(id, name)
      const recorded: Recorded = {
        name,
        kind,
        attributes,
        parent: Option.match(parent, { onNone: () => undefined, onSome: (p) => names.get(p.spanId) }),
        exit: undefined
      }
      spans.push(recorded)
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
        end: (_endTime, exit) => {
          recorded.exit = exit
        },
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
