// Strict reading of the backend's JSON (the one schema of ddm/view.go,
// docs/rpc.md): helpers that check one field each and throw an error naming
// it. Nothing is guessed: an unknown or misspelt field is an error too.

/** A body that does not follow the schema. */
export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

export type ErrorClass = new (message: string) => Error;

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** where.name, or name at the top. */
export function at(where: string, name: string): string {
  return where ? `${where}.${name}` : name;
}

function shown(v: unknown): string {
  return v === undefined ? 'nothing' : JSON.stringify(v);
}

/**
 * v as an object with exactly the required fields and some of the optional
 * ones: an unknown field or a missing required one is an error (a field whose
 * value is undefined counts as absent).
 */
export function fieldsOf(v: unknown, where: string, required: readonly string[], optional: readonly string[], E: ErrorClass = SchemaError): Record<string, unknown> {
  if (!isObject(v)) {
    throw new E(`${where || 'body'}: expected an object, got ${Array.isArray(v) ? 'an array' : shown(v)}`);
  }
  for (const [k, val] of Object.entries(v)) {
    if (val !== undefined && !required.includes(k) && !optional.includes(k)) {
      const known = [...required, ...optional];
      throw new E(`${at(where, JSON.stringify(k))}: unknown field${known.length ? ` (expected ${known.join(', ')})` : ''}`);
    }
  }
  for (const k of required) {
    if (v[k] === undefined) {
      throw new E(`${at(where, k)}: missing`);
    }
  }
  return v;
}

export function str(v: unknown, where: string, E: ErrorClass = SchemaError): string {
  if (typeof v !== 'string') {
    throw new E(`${where}: expected a string, got ${shown(v)}`);
  }
  return v;
}

export function bool(v: unknown, where: string, E: ErrorClass = SchemaError): boolean {
  if (typeof v !== 'boolean') {
    throw new E(`${where}: expected a boolean, got ${shown(v)}`);
  }
  return v;
}

/** A non-negative integer; safe: within 2^53 (addresses may be larger and lose their low bits). */
export function uint(v: unknown, where: string, E: ErrorClass = SchemaError, safe = true): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || (safe && !Number.isSafeInteger(v))) {
    throw new E(`${where}: expected a non-negative integer, got ${shown(v)}`);
  }
  return v;
}

/** A signed integer within 2^53 (a delta, a line number that may be -1 or -2). */
export function int(v: unknown, where: string, E: ErrorClass = SchemaError): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new E(`${where}: expected an integer, got ${shown(v)}`);
  }
  return v;
}

/** v as an array, each item read by item (its where is where[i]). */
export function list<T>(v: unknown, where: string, item: (v: unknown, where: string) => T, E: ErrorClass = SchemaError): T[] {
  if (!Array.isArray(v)) {
    throw new E(`${where}: expected an array, got ${shown(v)}`);
  }
  return v.map((x, i) => item(x, `${where}[${i}]`));
}
