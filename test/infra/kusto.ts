import { createRequire } from 'node:module';

/**
 * The offline Kusto language service (`@kusto/language-service-next`, a Bridge.NET build of
 * Kusto.Language): its scripts define the globals `Bridge` and `Kusto` when loaded, so it is loaded
 * once per process and analyses queries against a schema of the tables and functions they read.
 */

/** The few parts of the Kusto.Language API used here (its own .d.ts is 1.7 MB of globals). */
interface BridgeList<T> {
  Count: number;
  getItem(index: number): T;
}
interface KustoDiagnostic {
  Severity: string;
  Message: string;
  Start: number;
}
/** A node of the syntax tree: its kind, where it starts and ends in the query text. */
interface KustoSyntaxElement {
  Kind: number;
  TextStart: number;
  End: number;
  /** A union operator's operands (each `Element` is an expression). */
  Expressions?: BridgeList<{ Element: KustoSyntaxElement }>;
}
interface KustoLanguage {
  GlobalState: { Default: { WithDatabase(database: unknown): unknown } };
  KustoCode: {
    Parse(text: string): { Syntax: { WalkElements(action: (element: KustoSyntaxElement) => void): void } };
    ParseAndAnalyze(text: string, globals: unknown): {
      GetDiagnostics(): BridgeList<KustoDiagnostic>;
      /** A TableSymbol for a tabular query (its `Columns`); other symbols have none. */
      ResultType: { Columns?: BridgeList<{ Name: string; Type: { Name: string } }> } | null;
    };
  };
  Syntax: { SyntaxKind: { UnionOperator: number; SearchOperator: number } };
  Symbols: {
    TableSymbol: { $ctor7: new (name: string, schema: string, description: string | null) => unknown };
    DatabaseSymbol: { ctor: new (name: string, members: unknown[]) => unknown };
    FunctionSymbol: { $ctor16: new (name: string, parameters: string, body: string, description: string | null) => unknown };
  };
}

let language: KustoLanguage | undefined;

function loadLanguage(): KustoLanguage {
  if (!language) {
    const require = createRequire(__filename);
    require('@kusto/language-service-next/bridge.min.js');
    require('@kusto/language-service-next/Kusto.Language.Bridge.min.js');
    language = (globalThis as unknown as { Kusto: { Language: KustoLanguage } }).Kusto.Language;
  }
  return language;
}

export interface KustoSchema {
  /** Table name → `(Column:type, ...)`. */
  tables: Record<string, string>;
  /** Function name → body (functions without parameters, as workspace saved functions are). */
  functions: Map<string, string>;
}

/** A `union` or `search` operator found in a query's syntax tree. */
export interface MultiTableOperator {
  operator: 'union' | 'search';
  /** Offset of the operator in the query. */
  start: number;
  /** A union's operands as written (`AppEvents`, `(AppRequests | ...)`, `app("id").requests`); none for search. */
  operands: string[];
}

/**
 * The `union` and `search` operators of a query, found by parsing it (so the words inside a string
 * literal, a comment or a column name are not operators).
 */
export function multiTableOperators(query: string): MultiTableOperator[] {
  const kusto = loadLanguage();
  const { UnionOperator, SearchOperator } = kusto.Syntax.SyntaxKind;
  const found: MultiTableOperator[] = [];
  kusto.KustoCode.Parse(query).Syntax.WalkElements((element) => {
    if (element.Kind === SearchOperator) found.push({ operator: 'search', start: element.TextStart, operands: [] });
    if (element.Kind === UnionOperator) {
      const operands: string[] = [];
      const expressions = element.Expressions;
      for (let index = 0; index < (expressions?.Count ?? 0); index += 1) {
        const operand = expressions?.getItem(index).Element;
        if (operand) operands.push(query.slice(operand.TextStart, operand.End));
      }
      found.push({ operator: 'union', start: element.TextStart, operands });
    }
  });
  return found;
}

export interface KustoAnalyzer {
  /** Errors (and warnings) of a query analysed against the schema; empty when it is clean. */
  diagnose(query: string): string[];
  /** The columns (name and Kusto type) of a tabular query's result; empty when it is not tabular. */
  resultColumns(query: string): { name: string; type: string }[];
}

/** Builds an analyser for one workspace schema. The first call costs about 2 s (the service warms up). */
export function createKustoAnalyzer(schema: KustoSchema): KustoAnalyzer {
  const kusto = loadLanguage();
  const { TableSymbol, DatabaseSymbol, FunctionSymbol } = kusto.Symbols;
  const members = [
    ...Object.entries(schema.tables).map(([name, columns]) => new TableSymbol.$ctor7(name, columns, null)),
    ...[...schema.functions].map(([name, body]) => new FunctionSymbol.$ctor16(name, '()', `{\n${body}\n}`, null)),
  ];
  const globals = kusto.GlobalState.Default.WithDatabase(new DatabaseSymbol.ctor('workspace', members));
  return {
    diagnose(query) {
      const diagnostics = kusto.KustoCode.ParseAndAnalyze(query, globals).GetDiagnostics();
      const found: string[] = [];
      for (let index = 0; index < diagnostics.Count; index += 1) {
        const diagnostic = diagnostics.getItem(index);
        if (diagnostic.Severity === 'Error' || diagnostic.Severity === 'Warning') {
          found.push(`${diagnostic.Severity} at ${diagnostic.Start}: ${diagnostic.Message} (near "${query.slice(diagnostic.Start, diagnostic.Start + 30)}")`);
        }
      }
      return found;
    },
    resultColumns(query) {
      const columns = kusto.KustoCode.ParseAndAnalyze(query, globals).ResultType?.Columns;
      const found: { name: string; type: string }[] = [];
      for (let index = 0; index < (columns?.Count ?? 0); index += 1) {
        const column = columns?.getItem(index);
        if (column) found.push({ name: column.Name, type: column.Type.Name });
      }
      return found;
    },
  };
}
