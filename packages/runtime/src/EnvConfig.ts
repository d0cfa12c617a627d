/**
 * The `TOOLGATE_*` environment variables: one convenience naming of the config keys of every service that
 * has config, in this one table. Each such service has `layerConfig(config)`, where the app names its keys,
 * and `layerEnv`, which is `layerConfig` applied to these names (with Effect's default `ConfigProvider`,
 * the process environment). A key left unset takes the option's default; what each option means and its
 * default are documented on the service's `Options`.
 *
 * @since 0.1.0
 */

/** Every `TOOLGATE_*` name, by service and then by the option it sets. */
export const names = {
  /** `RunLimits.layerEnv` (`@toolgate/runtime`). */
  RunLimits: {
    maxToolArgumentRepairs: "TOOLGATE_MAX_TOOL_ARGUMENT_REPAIRS",
    maxProviderRoundTrips: "TOOLGATE_MAX_PROVIDER_ROUND_TRIPS",
    turnDeadlineMillis: "TOOLGATE_TURN_DEADLINE_MS",
    maxToolCallsPerTurn: "TOOLGATE_MAX_TOOL_CALLS_PER_TURN",
    maxToolCallsPerRound: "TOOLGATE_MAX_TOOL_CALLS_PER_ROUND",
    maxToolResultBytes: "TOOLGATE_MAX_TOOL_RESULT_BYTES"
  },
  /** `ArgumentValidator.layerEnv` (`@toolgate/runtime`); overrides are written `tool=strict,other=lenient`. */
  ArgumentValidator: {
    policy: "TOOLGATE_ARGUMENT_POLICY",
    policies: "TOOLGATE_ARGUMENT_POLICY_OVERRIDES",
    toolChaining: "TOOLGATE_TOOL_CHAINING",
    maxArgumentDepth: "TOOLGATE_MAX_ARGUMENT_DEPTH"
  },
  /** `RelayProfileClient.layerEnv` (`@toolgate/providers`): the relay's profile probe. */
  RelayProfileClient: {
    baseUrl: "TOOLGATE_RELAY_URL",
    timeout: "TOOLGATE_RELAY_PROFILE_TIMEOUT",
    timeToLive: "TOOLGATE_RELAY_PROFILE_TTL"
  },
  /** `CloudRelay.layerEnv` (`@toolgate/providers`); it shares `TOOLGATE_RELAY_URL` with the profile probe. */
  CloudRelay: {
    baseUrl: "TOOLGATE_RELAY_URL",
    timeout: "TOOLGATE_RELAY_TIMEOUT",
    idleTimeout: "TOOLGATE_RELAY_IDLE_TIMEOUT",
    roundTimeout: "TOOLGATE_RELAY_ROUND_TIMEOUT"
  },
  /** `OpenAiCompatible.layerEnv` (`@toolgate/providers`); the key is read redacted. */
  OpenAiCompatible: {
    baseUrl: "TOOLGATE_OPENAI_BASE_URL",
    model: "TOOLGATE_OPENAI_MODEL",
    apiKey: "TOOLGATE_OPENAI_API_KEY"
  },
  /** `Gemini.layerEnv` (`@toolgate/providers`); the key and the token are read redacted. */
  Gemini: {
    model: "TOOLGATE_GEMINI_MODEL",
    endpoint: "TOOLGATE_GEMINI_ENDPOINT",
    baseUrl: "TOOLGATE_GEMINI_BASE_URL",
    apiKey: "TOOLGATE_GEMINI_API_KEY",
    accessToken: "TOOLGATE_GEMINI_ACCESS_TOKEN",
    project: "TOOLGATE_GEMINI_PROJECT"
  }
} as const
