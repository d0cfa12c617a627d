/**
 * The bounded memory of Gemini's thought signatures (Gemini 3 refuses a history whose calls lost theirs).
 *
 * @internal
 */
/** Thought signatures by call id, the oldest forgotten past `capacity` (histories only need their recent calls'). */
export const signatures = (capacity: number) => {
  const byId = new Map<string, string>()
  return {
    remember: (id: string, signature: string): void => {
      byId.delete(id)
      byId.set(id, signature)
      if (byId.size > capacity) byId.delete(byId.keys().next().value!)
    },
    get: (id: string): string | undefined => byId.get(id)
  }
}
