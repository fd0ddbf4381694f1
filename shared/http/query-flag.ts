import * as z from 'zod/mini';
import { problem, type Problem } from '../errors/problem';
import type { QueryParameter } from './endpoint-definition';

/**
 * A yes/no query parameter (`?erase=true`): absent means no; present it must spell one of the
 * schema's values exactly, anything else is 400 `invalid_request` (`1`, `yes` or `TRUE` are
 * refused rather than guessed). The schema is the one declaration: the handler reads the flag
 * with it and the OpenAPI document derives the parameter (a boolean, how it is spelled) from it.
 */
export const queryFlagSchema = z.optional(z.enum(['true', 'false']));

/** The flag's spellings, as the schema accepts them. */
const SPELLINGS = queryFlagSchema.def.innerType.options;

/** The flag `name` of a request's query: its value, or the problem to answer. */
export function readQueryFlag(query: { get(name: string): string | null }, name: string): boolean | Problem {
  const parsed = queryFlagSchema.safeParse(query.get(name) ?? undefined);
  if (!parsed.success) return problem('invalid_request', { detail: `${name}: ${SPELLINGS.join(' or ')}.` });
  return parsed.data === 'true';
}

/** The flag as the OpenAPI document lists it: a boolean, false when absent, with its spellings. */
export function queryFlagParameter(name: string, description: string): QueryParameter {
  const spelled = SPELLINGS.map((value) => `\`${value}\``).join(' or ');
  return {
    name,
    description: `${description} Spelled ${spelled} (lower case); absent means \`false\`; any other value answers 400 \`invalid_request\`.`,
    schema: { type: 'boolean', default: false },
  };
}
