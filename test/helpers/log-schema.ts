import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import schema from '../../shared/logging/log-line.schema.json';

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** Parses one stdout line and checks it against the log-line schema; throws with the reason when it is not one. */
export function parseLogLine(line: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`stdout line is not JSON: ${line.slice(0, 200)}`);
  }
  // pino concatenates bindings, so a field bound twice appears twice; JSON.parse would hide that.
  const keys = topLevelKeys(line);
  const repeated = keys.find((key, index) => keys.indexOf(key) !== index);
  if (repeated !== undefined) throw new Error(`log line repeats "${repeated}": ${line.slice(0, 300)}`);
  if (!validate(parsed)) {
    throw new Error(`log line breaks the schema: ${ajv.errorsText(validate.errors)}\n${line.slice(0, 500)}`);
  }
  return parsed as Record<string, unknown>;
}

/** The keys of a JSON object line's top level, in order, duplicates kept. */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (char === '"') {
      let end = index + 1;
      while (end < line.length && line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (depth === 1 && line[end + 1] === ':') keys.push(JSON.parse(line.slice(index, end + 1)) as string);
      index = end;
    } else if (char === '{' || char === '[') {
      depth += 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
    }
  }
  return keys;
}
