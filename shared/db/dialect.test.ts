import { describe, expect, it } from 'vitest';
import { jsonRowsCte, jsonRowsSource, limitClause } from './dialect';

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

describe('jsonRowsSource', () => {
  const columns = [
    { name: 'userId', type: { text: 64 } },
    { name: 'result', type: { text: 32 } },
  ];

  it('reads the objects of a JSON array as rows: OPENJSON on SQL Server, json_each on SQLite', () => {
    expect(jsonRowsSource('mssql', '@rows', columns)).toBe("OPENJSON(@rows) WITH (userId nvarchar(64) '$.userId', result nvarchar(32) '$.result')");
    expect(jsonRowsSource('sqlite', '@rows', columns)).toBe(
      "(SELECT json_extract(value, '$.userId') AS userId, json_extract(value, '$.result') AS result FROM json_each(@rows))",
    );
  });

  it('takes only a placeholder and plain column names, never values', () => {
    expect(() => jsonRowsSource('sqlite', "'[]'" as '@x', columns)).toThrow(/placeholder/);
    expect(() => jsonRowsSource('mssql', '@rows', [{ name: "a') --", type: { text: 1 } }])).toThrow(/bad column/);
    expect(() => jsonRowsSource('mssql', '@rows', [{ name: 'a', type: { text: 0 } }])).toThrow(/bad column/);
  });
});

describe('jsonRowsCte', () => {
  const columns = [{ name: 'userId', type: { text: 64 } }];

  it('names the JSON rows once per statement, materialized on SQLite so they are read once', () => {
    expect(jsonRowsCte('mssql', 'j', '@rows', columns)).toBe(
      "WITH j AS (SELECT userId FROM OPENJSON(@rows) WITH (userId nvarchar(64) '$.userId') AS rows_)",
    );
    expect(jsonRowsCte('sqlite', 'j', '@rows', columns)).toBe(
      "WITH j AS MATERIALIZED (SELECT userId FROM (SELECT json_extract(value, '$.userId') AS userId FROM json_each(@rows)) AS rows_)",
    );
    expect(() => jsonRowsCte('sqlite', 'j; DROP', '@rows', columns)).toThrow(/bad name/);
  });
});
