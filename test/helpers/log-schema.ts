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
  for (const field of Object.keys(schema.properties)) {
    if (line.split(`"${field}":`).length > 2) throw new Error(`log line repeats "${field}": ${line.slice(0, 300)}`);
  }
  if (!validate(parsed)) {
    throw new Error(`log line breaks the schema: ${ajv.errorsText(validate.errors)}\n${line.slice(0, 500)}`);
  }
  return parsed as Record<string, unknown>;
}
