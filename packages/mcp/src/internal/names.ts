/** The tool names MCP recommends: 1 to 128 of `A-Z a-z 0-9 _ - .`. */
const pattern = /^[A-Za-z0-9_.-]{1,128}$/

/** Whether `name` is a tool name toolgate takes from an MCP server. */
export const isValid = (name: string): boolean => pattern.test(name)

/** Why `name` is not taken, for a report. */
export const problem = (name: string): string =>
  `the tool name ${JSON.stringify(name.length > 140 ? `${name.slice(0, 128)}…` : name)} is not 1 to 128 of A-Z a-z 0-9 _ - .`
