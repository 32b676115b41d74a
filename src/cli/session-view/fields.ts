/** Reading event data field by field, never trusting it (view-model.ts says why). */

export type Fields = Record<string, unknown>;

export const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;
export const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** Copies the defined values of `fields` onto `target` (keeps optional fields absent, not undefined). */
export function assignDefined<T extends object>(target: T, fields: Partial<T>): void {
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) {
      (target as Record<string, unknown>)[key] = value;
    }
  }
}
