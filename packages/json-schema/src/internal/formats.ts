/**
 * The formats the validator enforces (ajv-formats, as `Validator` configures it): other format names are
 * annotations it ignores.
 *
 * @internal
 */

/** The string formats ajv-formats enforces (other format names are ignored by the validator). */
export const stringFormats: ReadonlySet<string> = new Set([
  "date", "time", "date-time", "iso-time", "iso-date-time", "duration", "uri", "uri-reference", "uri-template",
  "url", "email", "hostname", "ipv4", "ipv6", "regex", "uuid", "json-pointer", "json-pointer-uri-fragment",
  "relative-json-pointer", "byte", "password", "binary"
])

/** The numeric formats ajv-formats enforces on numbers. */
export const numberFormats: ReadonlySet<string> = new Set(["int32", "int64", "float", "double"])

/** Formats that accept every string (`password`, `binary`) or every number (`float`, `double`). */
export const universalFormats: ReadonlySet<string> = new Set(["password", "binary", "float", "double"])
