/** The vitest projects: one per package and app. */
export default ["packages/*", "apps/*"]
