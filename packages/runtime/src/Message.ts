/**
 * The conversation a session keeps and sends to its provider: user text, assistant turns (text and the
 * tool calls the model made) and tool results (always an envelope). A Schema union, so history crosses
 * HTTP as JSON and a provider can map it to its own wire format.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Json } from "./internal/schemas.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** One tool call as the model made it: its id, the tool's name and the arguments exactly as sent. */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.optionalWith(Json, { exact: true })
}).annotations({ identifier: "ToolCall" })
export type ToolCall = typeof ToolCall.Type

/** An image's media type: `image/<subtype>` (`image/png`, `image/jpeg`, `image/webp`, …). */
export const ImageMediaType = Schema.String.pipe(
  Schema.pattern(/^image\/[a-z0-9][a-z0-9.+-]{0,62}$/i, { message: () => "an image media type such as image/png" })
).annotations({ identifier: "ImageMediaType" })

/** The most base64 characters one inline image may have (20 MiB of text, about 15 MiB of image). */
export const maxImageDataLength = 20 * 1024 * 1024

/** The most images one user message may carry. */
export const maxImages = 16

const base64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Base64 text (standard alphabet, padded to a multiple of 4, no whitespace, no `data:` prefix), at most `maxImageDataLength` characters. */
export const Base64 = Schema.String.pipe(
  Schema.filter((s) => s.length > 0 && s.length <= maxImageDataLength && s.length % 4 === 0 && base64.test(s), {
    message: () => `base64 text of 1 to ${maxImageDataLength} characters (standard alphabet, padded, no data: prefix)`
  })
).annotations({ identifier: "Base64" })

/** An image URL the model's backend fetches itself: `https:`, `http:` or `gs:` (Google Cloud Storage), at most 8192 characters. */
export const ImageUrlString = Schema.String.pipe(
  Schema.filter((s) => {
    if (s.length > 8192) return false
    try {
      const url = new URL(s)
      return (url.protocol === "https:" || url.protocol === "http:" || url.protocol === "gs:") && url.host !== ""
    } catch {
      return false
    }
  }, { message: () => "an absolute https:, http: or gs: URL of at most 8192 characters" })
).annotations({ identifier: "ImageUrlString" })

/** An image sent inline: its bytes as base64 and its media type. */
export const ImageData = Schema.TaggedStruct("ImageData", {
  mediaType: ImageMediaType,
  data: Base64
}).annotations({ identifier: "ImageData" })
export type ImageData = typeof ImageData.Type

/** An image by URL (the media type is needed by some backends, Gemini's `fileData` among them). */
export const ImageUrl = Schema.TaggedStruct("ImageUrl", {
  url: ImageUrlString,
  mediaType: Schema.optionalWith(ImageMediaType, { exact: true })
}).annotations({ identifier: "ImageUrl" })
export type ImageUrl = typeof ImageUrl.Type

/** An image a user message carries (only to a provider that declares `supportsVision`). */
export const Image = Schema.Union(ImageData, ImageUrl).annotations({ identifier: "Image" })
export type Image = typeof Image.Type

/** A user message's images: 1 to `maxImages`. */
export const Images = Schema.Array(Image).pipe(Schema.minItems(1), Schema.maxItems(maxImages))

/** What the user said, and the images they sent with it (absent when none). */
export const User = Schema.TaggedStruct("User", {
  text: Schema.String,
  images: Schema.optionalWith(Images, { exact: true })
})
export type User = typeof User.Type

/** What the model answered in one round trip: its text and the tool calls it made (possibly none). */
export const Assistant = Schema.TaggedStruct("Assistant", {
  text: Schema.String,
  toolCalls: Schema.Array(ToolCall)
})
export type Assistant = typeof Assistant.Type

/** The envelope a tool call was answered with. */
export const ToolResult = Schema.TaggedStruct("ToolResult", {
  callId: Schema.String,
  name: Schema.String,
  envelope: ToolEnvelope.Envelope
})
export type ToolResult = typeof ToolResult.Type

/** Any message of a conversation. */
export const Message = Schema.Union(User, Assistant, ToolResult).annotations({ identifier: "Message" })
export type Message = typeof Message.Type
