/**
 * @toolgate/providers: concrete `AgentProvider`s for `@toolgate/runtime` sessions.
 *
 * @since 0.1.0
 */
