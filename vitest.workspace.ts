/** The vitest projects: one per package and app that has a vitest config (packages/test-support has none). */
export default ["packages/*/vitest.config.ts", "apps/*/vitest.config.ts"]
