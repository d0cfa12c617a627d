/**
 * The relay's profile: what a relay says about itself at `GET /v1/agent/capabilities` (the wire keeps that
 * path and its `capabilities_version` key), namely the tool schemas it exports. This module is the service
 * the drift gate reads; the HTTP client that fills it (`RelayProfileClient`) lives in `@toolgate/providers`,
 * beside the relay's other client, `CloudRelay`. A provider's own flags are `Provider.ProviderCapabilities`,
 * a different concept.
 *
 * @since 0.1.0
 */
import type { JsonSchema } from "@toolgate/json-schema"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type { RelayProfileContractError } from "./Errors.js"

/** What the relay said: its exported tool schemas, that it predates the export, or nothing usable. */
export type Probe = Data.TaggedEnum<{
  /** The relay exports its resolved tool schemas (by tool name, as sent: not yet upgraded). */
  Exported: { readonly version: string; readonly toolSchemas: ReadonlyMap<string, JsonSchema.JsonSchema> }
  /** The relay answered without either key: it predates the export. */
  Predates: {}
  /** No answer: a network error, a timeout, a 404, 408, 429 or 5xx (`cause` says which). */
  Unreachable: { readonly cause: string }
}>

/** Constructors and matchers of `Probe`. */
export const Probe = Data.taggedEnum<Probe>()

/** The relay profile service: one probe of the relay's profile (single-flight and cached by its implementations). */
export interface Service {
  readonly probe: () => Effect.Effect<Probe, RelayProfileContractError>
}

/** The relay profile service tag. */
export class RelayProfile extends Context.Tag("@toolgate/runtime/RelayProfile")<RelayProfile, Service>() {}
