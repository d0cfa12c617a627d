/**
 * A session built from decoded options and checked parts: its provider (given, built from the session's
 * registry when registry-aware, or the `Provider` service), its scoped toolkit, its store, its environment.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Tracer from "effect/Tracer"
import { ArgumentValidator } from "../ArgumentValidator.js"
import { DriftGate } from "../DriftGate.js"
import * as Errors from "../Errors.js"
import * as Provider from "../Provider.js"
import * as RunLimits from "../RunLimits.js"
import * as SessionStore from "../SessionStore.js"
import type * as Toolkit from "../Toolkit.js"
import { safeString } from "./json.js"
import { registry } from "./registry.js"
import * as SessionAdmit from "./sessionAdmit.js"
import { methods } from "./sessionMethods.js"
import type { Parts } from "./sessionParts.js"
import * as SessionResume from "./sessionResume.js"
import { decodeFlags, type Settings, withDefaults } from "./sessionSettings.js"
import { type Live, makeEnv } from "./sessionState.js"
import * as ToolDiscovery from "./toolDiscovery.js"

/** The provider a registry-aware spec builds, or an `InvalidOptions` when building throws or gives no provider. */
const registryAware = (build: () => Provider.AgentProvider): Provider.AgentProvider | Errors.InvalidOptions => {
  try {
    const provider: unknown = build()
    const ok = typeof provider === "object" && provider !== null && typeof (provider as Provider.AgentProvider).stream === "function" &&
      typeof (provider as Provider.AgentProvider).capabilities === "object" && (provider as Provider.AgentProvider).capabilities !== null
    return ok ? provider as Provider.AgentProvider : new Errors.InvalidOptions({ of: "AgentSession", detail: "provider: the registry-aware spec gave no provider" })
  } catch (e) {
    return new Errors.InvalidOptions({ of: "AgentSession", detail: `provider: the registry-aware spec failed (${safeString(e instanceof Error ? e.message : e)})` })
  }
}

/** The session's provider: the one given, built from the session's registry when registry-aware, or the `Provider` service. */
const providerOf = Effect.fnUntraced(function*(given: Parts["provider"], build: () => Provider.Registry) {
  const spec = given ?? (yield* Provider.Provider)
  if (!("_tag" in spec)) return spec
  const built = registryAware(() => spec.make(build()))
  return built instanceof Errors.InvalidOptions ? yield* built : built
})

/** The session over decoded options and checked parts; the services it needs come from context. */
export const makeWith = Effect.fnUntraced(function*(given: typeof Settings.Type, parts: Parts) {
  const settings = withDefaults(given)
  // the toolkit's requirements are captured here and given to each executor when it runs (no per-tool copies);
  // the span the session was made in is not among them: an executor's spans nest under its call's span
  const context = Context.omit(Tracer.ParentSpan)(yield* Effect.context<never>())
  const validator = yield* ArgumentValidator
  const gate = settings.mode === "cloudProfile" ? yield* DriftGate : undefined
  const limits = settings.limits ?? Option.getOrElse(yield* Effect.serviceOption(RunLimits.RunLimits), () => RunLimits.defaults)
  const scoped = yield* ToolDiscovery.scope(parts.toolkit as Toolkit.Toolkit<never>, settings.scope)
  const id = settings.id ?? settings.snapshot?.id ?? crypto.randomUUID()
  if (settings.snapshot !== undefined && settings.snapshot.id !== id) {
    return yield* new Errors.InvalidOptions({ of: "AgentSession", detail: `snapshot: its id ${safeString(settings.snapshot.id)} is not the session's id ${safeString(id)}` })
  }
  const store = yield* Effect.serviceOption(SessionStore.SessionStore)
  const durable = Option.isNone(store)
    ? undefined
    : yield* SessionResume.open(store.value, id, { ttl: Duration.millis(settings.leaseMillis ?? 60_000), onBusy: settings.onBusy ?? "fail", waitMillis: settings.waitMillis }, settings.snapshot)
  const live: Live = { current: undefined }
  const keys = { turn: 0, part: "" }
  const provider = yield* providerOf(parts.provider, () => registry({ toolkit: scoped, validator, limits, live, id, keys, context, durable }))
  yield* decodeFlags(provider.capabilities)
  const discovery = Ref.unsafeMake(ToolDiscovery.initial(scoped, provider.capabilities))
  const toolkit = yield* ToolDiscovery.withTools(scoped, provider.capabilities, discovery)
  const env = makeEnv({
    id,
    provider,
    toolkit,
    context,
    validator,
    gate,
    limits,
    chainScope: settings.chainScope,
    preTransmit: parts.preTransmit,
    maxEventsPerRound: settings.maxEventsPerRound,
    definitions: SessionAdmit.definitionsFor(toolkit, provider.capabilities, { toolChaining: validator.toolChaining, strictTools: settings.strictTools }),
    persona: settings.persona,
    name: settings.name,
    sampling: settings.sampling,
    live,
    keys,
    durable
  }, settings.eventCapacity, discovery)
  yield* SessionResume.start(env, durable, settings.snapshot)
  return methods(env, Effect.unsafeMakeSemaphore(1).withPermits(1))
})