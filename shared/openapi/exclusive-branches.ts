/**
 * Makes the branches of a union of closed objects exclusive in a form generated types enforce:
 * each branch lists the properties only the others have as `false` (the JSON Schema that nothing
 * matches), so openapi-typescript gives `{ pin: string; password?: never } | { password: string;
 * pin?: never }` instead of a plain union that a body with both members satisfies; and the union
 * becomes a `oneOf`, since at most one branch can match. The server refuses such a body anyway (the
 * branches are closed); this says so in the document. Unions of anything else are left as they are.
 */
export function exclusiveBranches(jsonSchema: Record<string, unknown>): void {
  const branches = jsonSchema.anyOf;
  if (!Array.isArray(branches) || branches.length < 2 || !branches.every(isClosedObject)) return;
  const names = new Set(branches.flatMap((branch) => Object.keys(branch.properties)));
  for (const branch of branches) {
    for (const name of names) if (!(name in branch.properties)) branch.properties[name] = false;
  }
  delete jsonSchema.anyOf;
  jsonSchema.oneOf = branches;
}

interface ClosedObject {
  type: 'object';
  properties: Record<string, unknown>;
  additionalProperties: false;
}

function isClosedObject(value: unknown): value is ClosedObject {
  if (typeof value !== 'object' || value === null) return false;
  const schema = value as Partial<ClosedObject>;
  return schema.type === 'object' && typeof schema.properties === 'object' && schema.additionalProperties === false;
}
