/** JSON values as they arrive in a request body, narrowed without `any`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === "string" ? value : undefined;
}

export function arrayField(object: JsonObject, key: string): JsonValue[] {
  const value = object[key];
  return Array.isArray(value) ? value : [];
}

export function objectField(object: JsonObject, key: string): JsonObject | undefined {
  const value = object[key];
  return isJsonObject(value) ? value : undefined;
}

/** Parses text and reports whether it is a JSON object (what every provider expects of tool arguments). */
export function parsesToJsonObject(text: string): boolean {
  try {
    return isJsonObject(JSON.parse(text));
  } catch {
    return false;
  }
}
