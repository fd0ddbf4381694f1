import { describe, expect, it } from 'vitest';
import { limitClause } from './dialect';

describe('limitClause', () => {
  it('spells paging per engine', () => {
    expect(limitClause('sqlite', '@limit')).toBe('LIMIT @limit');
    expect(limitClause('sqlite', '@limit', '@offset')).toBe('LIMIT @limit OFFSET @offset');
    expect(limitClause('mssql', '@limit')).toBe('OFFSET 0 ROWS FETCH NEXT @limit ROWS ONLY');
    expect(limitClause('mssql', '@limit', '@offset')).toBe('OFFSET @offset ROWS FETCH NEXT @limit ROWS ONLY');
  });

  it('takes placeholders only, never values or SQL', () => {
    expect(() => limitClause('sqlite', '@limit; DROP TABLE AuditLog' as '@limit')).toThrow(/placeholders/);
    expect(() => limitClause('mssql', '@limit', '@1' as '@x')).toThrow(/placeholders/);
  });
});
