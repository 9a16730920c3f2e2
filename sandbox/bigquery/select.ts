/**
 * Users' SELECTs in the sandbox's BigQuery, and the reader's own SELECT around them: parsed by
 * node-sql-parser (BigQuery dialect, with locations), checked as BigQuery checks them (names,
 * parameters, operand types, in its words and at its [line:column]) and run by a small evaluator.
 *
 * It runs: one table, subquery or WITH name in FROM; `*`, column references, literals (typed ones
 * too), @parameters and aliases; comparisons, AND / OR / NOT, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN
 * (a list), unary minus; IFNULL, COALESCE, CURRENT_DATE(), CURRENT_TIMESTAMP(); WHERE, ORDER BY,
 * LIMIT [OFFSET]. Anything else (joins, GROUP BY, aggregates, UNION, LIKE, CASE, subqueries in
 * expressions…) is refused as invalidQuery, saying the sandbox does not run it.
 */
import { Parser } from 'node-sql-parser/build/bigquery';
import {
  cellOf,
  comparable,
  compareCells,
  invalidQuery,
  isError,
  isNumberType,
  Numeric,
  parameterNamed,
  positionIn,
  standardType,
  Timestamp,
  type Cell,
  type Field,
  type FieldType,
  type Parameter,
  type Row,
} from '@/sandbox/bigquery/values';
import type { Table } from '@/sandbox/bigquery/warehouse';

/** A table and the columns of it a statement reads: what the statement processes (and is billed for). */
export interface Scan {
  table: Table;
  columns: Set<string>;
}

export interface QueryOutcome {
  statementType: string;
  result?: { fields: Field[]; rows: Row[] };
  dml?: { inserted: number; updated: number; deleted: number };
  /** An error of the running job (the statement was accepted, but failed). */
  runtimeError?: string;
}

/** A statement checked and ready: its type, its result columns (a SELECT), what it reads, and its run. */
export interface Prepared {
  statementType: string;
  fields?: Field[];
  scans: Scan[];
  run(): QueryOutcome;
}

/** What a FROM reads: a table, a subquery or a WITH name. */
export interface Relation {
  fields: Field[];
  /** The tables and columns read to give the result columns named in `needed` (null: every one). */
  scans(needed: Set<string> | null): Scan[];
  rows(): Row[];
}

export interface SelectContext {
  sql: string;
  params: Map<string, Parameter>;
  /** The table a FROM names (its path split on dots); a missing one throws notFound. */
  table(path: string[]): Table;
  named: Map<string, Relation>;
}

interface Loc {
  start: { line: number; column: number };
}

/** The part of node-sql-parser's AST the evaluator reads (the library's own types are looser than its output). */
interface Node {
  type?: string;
  loc?: Loc;
  value?: unknown;
  operator?: string;
  left?: Node;
  right?: Node;
  expr?: Node;
  table?: string | null;
  column?: string | { expr: { value: string } };
  name?: string | { name: Array<{ value: string }>; schema?: { value: string } };
  args?: { value?: Node[] };
  over?: unknown;
}

interface FromNode {
  type?: string;
  db?: string | null;
  schema?: string;
  table?: string;
  as?: string | null;
  join?: string;
  expr?: { ast?: SelectNode };
}

export interface SelectNode {
  type: string;
  keyword?: string;
  with?: Array<{ name: { value: string }; stmt: { ast: SelectNode } }> | null;
  columns: Array<{ expr: Node; as: string | { value: string } | null; type?: string }>;
  distinct?: unknown;
  from?: FromNode[] | null;
  where?: Node | null;
  groupby?: unknown;
  having?: unknown;
  qualify?: unknown;
  window?: unknown;
  _next?: unknown;
  orderby?: Array<{ expr: Node; type: string | null }> | null;
  limit?: { seperator: string; value: Array<{ value: unknown }> } | null;
}

const SUBSET = 'SELECT … FROM one table, subquery or WITH name [WHERE] [ORDER BY] [LIMIT], and the MERGE statements SignalBridge sends';

/** The refusal of SQL outside what the sandbox runs (BigQuery would run it). */
export const unsupported = (what: string) => invalidQuery(`The sandbox's BigQuery does not run ${what}: it runs ${SUBSET}`);

const parser = new Parser();

/** A statement: a SELECT's AST, or the type of any other statement (which the sandbox only dry-runs). */
export function parseStatement(sql: string): { ast: SelectNode } | { statementType: string } {
  let parsed: unknown;
  try {
    parsed = parser.astify(sql, { database: 'BigQuery', parseOptions: { includeLocations: true } });
  } catch (error) {
    const { location, found } = error as { location?: { start: { offset: number } }; found?: string | null };
    if (!location) throw invalidQuery(`Syntax error: ${(error as Error).message}`);
    const token = /^(\w+|`[^`]*`|'[^']*'|"[^"]*"|\S)/.exec(sql.slice(location.start.offset))?.[0];
    const what = found === null || !token ? 'end of script' : `"${token}"`;
    throw invalidQuery(`Syntax error: Unexpected ${what} at ${positionIn(sql, location.start.offset)}`);
  }
  const statements = (Array.isArray(parsed) ? parsed : [parsed]) as SelectNode[];
  if (statements.length !== 1) return { statementType: 'SCRIPT' };
  const statement = statements[0]!;
  if (statement.type === 'select') return { ast: statement };
  const kind = String(statement.type ?? 'unknown').toUpperCase();
  const object = kind === 'CREATE' || kind === 'DROP' ? `_${String(statement.keyword ?? 'table').toUpperCase()}` : '';
  return { statementType: `${kind}${object}` };
}

const LEGACY_TYPES: Partial<Record<FieldType, string>> = { INT64: 'INTEGER', FLOAT64: 'FLOAT', BOOL: 'BOOLEAN' };

/** A result column as BigQuery's result schemas give it: INTEGER, FLOAT and BOOLEAN by their legacy names. */
const resultField = (name: string, type: FieldType, mode: Field['mode'] = 'NULLABLE'): Field => ({
  name,
  type: LEGACY_TYPES[type] ?? type,
  mode,
});

const placed = (node: { loc?: Loc }) => (node.loc ? ` at [${node.loc.start.line}:${node.loc.start.column}]` : '');
const same = (left: string | null | undefined, right: string | null | undefined) =>
  left !== null && left !== undefined && right !== null && right !== undefined && left.toLowerCase() === right.toLowerCase();
const columnName = (node: Node) => (typeof node.column === 'string' ? node.column : (node.column?.expr.value ?? ''));

/** An expression checked: its type (null for a bare NULL), whether it is a literal or parameter, and how to compute it for a row. */
interface Compiled {
  type: FieldType | null;
  constant: boolean;
  run(row: Row): Cell;
}

/** What an expression may name: the FROM's alias and columns; `used` collects the columns it reads. */
interface Scope {
  alias: string | null;
  fields: Field[];
  context: SelectContext;
  used: Set<string>;
}

const TIME_TYPES = new Set<FieldType | null>(['DATE', 'DATETIME', 'TIMESTAMP']);
const STRING_LITERALS = new Set(['single_quote_string', 'double_quote_string', 'string', 'regex_string', 'natural_string']);
const TYPED_LITERALS: Record<string, FieldType> = { date: 'DATE', datetime: 'DATETIME', timestamp: 'TIMESTAMP' };

const constant = (type: FieldType | null, value: Cell): Compiled => ({ type, constant: true, run: () => value });
const bool = (run: (row: Row) => boolean | null): Compiled => ({ type: 'BOOL', constant: false, run });

/** Three-valued logic: a BOOL cell as true, false or null. */
const truth = (cell: Cell) => (cell === null ? null : cell === true);

function checkBool(operator: string, operand: Compiled, node: Node) {
  if (operand.type && operand.type !== 'BOOL')
    throw invalidQuery(`No matching signature for operator ${operator} for argument types: ${operand.type}${placed(node)}`);
}

/**
 * The operands of a comparison, checked as BigQuery types them against the first: a text literal or
 * parameter compared with a DATE, DATETIME or TIMESTAMP is cast to it (an unreadable one is an error).
 */
function operands(operator: string, list: Compiled[], node: Node): Compiled[] {
  const target = (list.find((operand) => operand.type && !operand.constant) ?? list.find((operand) => operand.type))?.type ?? null;
  const cast = list.map((operand) => {
    if (!TIME_TYPES.has(target) || operand.type !== 'STRING' || !operand.constant) return operand;
    const value = operand.run({});
    const cell = value === null ? null : cellOf(target!, value);
    if (isError(cell)) throw invalidQuery(`Could not cast literal "${String(value)}" to type ${target}${placed(node)}`);
    return constant(target, cell);
  });
  if (cast.every((operand) => comparable(cast[0]!.type, operand.type))) return cast;
  const types = list.map((operand) => operand.type ?? 'INT64').join(', ');
  const supported = list.length === 2 ? `. Supported signature: ANY ${operator} ANY` : '';
  throw invalidQuery(`No matching signature for operator ${operator} for argument types: ${types}${supported}${placed(node)}`);
}

/** Whether `op` holds of an ordering (-1, 0, 1). */
const COMPARISONS: Record<string, (order: number) => boolean> = {
  '=': (order) => order === 0,
  '!=': (order) => order !== 0,
  '<>': (order) => order !== 0,
  '<': (order) => order < 0,
  '<=': (order) => order <= 0,
  '>': (order) => order > 0,
  '>=': (order) => order >= 0,
};

function compileBinary(node: Node, scope: Scope): Compiled {
  const operator = (node.operator ?? '').toUpperCase();
  const negated = operator.startsWith('NOT ');
  const base = negated ? operator.slice(4) : operator;
  const left = compile(node.left!, scope);
  const list = () => {
    const items = node.right?.type === 'expr_list' ? (node.right.value as Node[]) : null;
    if (!items || items.some((item) => !item.type)) throw unsupported(`${base} with a subquery`);
    return items.map((item) => compile(item, scope));
  };
  const not = (value: boolean | null) => (value === null ? null : negated ? !value : value);
  if (base === 'AND' || base === 'OR') {
    const right = compile(node.right!, scope);
    checkBool(base, left, node);
    checkBool(base, right, node);
    const stop = base === 'OR';
    return bool((row) => {
      const a = truth(left.run(row));
      if (a === stop) return stop;
      const b = truth(right.run(row));
      if (b === stop) return stop;
      return a === null || b === null ? null : !stop;
    });
  }
  if (COMPARISONS[base]) {
    const [a, b] = operands(base, [left, compile(node.right!, scope)], node);
    const holds = COMPARISONS[base];
    return bool((row) => {
      const order = compareCells(a!.run(row), b!.run(row));
      return order === null ? null : holds(order);
    });
  }
  if (base === 'IS' || base === 'IS NOT') {
    if (node.right?.type !== 'null') throw unsupported('IS TRUE / IS FALSE');
    return bool((row) => (left.run(row) === null) === (base === 'IS'));
  }
  if (base === 'BETWEEN') {
    const [value, low, high] = operands(base, [left, ...list()], node);
    return bool((row) => {
      const cell = value!.run(row);
      const above = compareCells(cell, low!.run(row));
      const below = compareCells(cell, high!.run(row));
      return not(above === null || below === null ? null : above >= 0 && below <= 0);
    });
  }
  if (base === 'IN') {
    const [value, ...items] = operands(base, [left, ...list()], node);
    return bool((row) => {
      const cell = value!.run(row);
      if (cell === null) return null;
      return not(items.some((item) => compareCells(cell, item.run(row)) === 0));
    });
  }
  throw unsupported(`the operator ${operator}`);
}

/** NOT: BOOL in, BOOL out, NULL stays NULL. */
function negation(operand: Compiled, node: Node): Compiled {
  checkBool('NOT', operand, node);
  return bool((row) => {
    const value = truth(operand.run(row));
    return value === null ? null : !value;
  });
}

/** Functions the sandbox knows, by name: their result type and value from checked arguments. */
const FUNCTIONS: Record<string, { arity?: number; call(args: Compiled[], node: Node): Compiled }> = {
  // The parser reads `NOT (…)` as a call of NOT.
  NOT: { arity: 1, call: (args, node) => negation(args[0]!, node) },
  IFNULL: { arity: 2, call: (args, node) => firstNonNull('IFNULL', args, node) },
  COALESCE: { call: (args, node) => firstNonNull('COALESCE', args, node) },
  CURRENT_TIMESTAMP: { arity: 0, call: () => ({ type: 'TIMESTAMP', constant: false, run: () => new Timestamp(Date.now() * 1000) }) },
  CURRENT_DATE: { arity: 0, call: () => ({ type: 'DATE', constant: false, run: () => new Date().toISOString().slice(0, 10) }) },
};

function firstNonNull(name: string, args: Compiled[], node: Node): Compiled {
  if (args.length === 0) throw invalidQuery(`Number of arguments does not match for function ${name}${placed(node)}`);
  const checked = operands(name, args, node);
  const type = checked.find((arg) => arg.type)?.type ?? null;
  return {
    type,
    constant: checked.every((arg) => arg.constant),
    run: (row) => checked.map((arg) => arg.run(row)).find((cell) => cell !== null) ?? null,
  };
}

/** Checks an expression against the scope (names, parameters, types) and makes it a function of a row. */
function compile(node: Node, scope: Scope): Compiled {
  const type = node.type;
  if (type === undefined) throw unsupported('subqueries in expressions');
  if (STRING_LITERALS.has(type)) return constant('STRING', String(node.value));
  if (type === 'number' || type === 'bigint') {
    const literal = String(node.value);
    return constant(/^-?\d+$/.test(literal) ? 'INT64' : 'FLOAT64', Number(literal));
  }
  if (type === 'bool') return constant('BOOL', node.value === true);
  if (type === 'null') return constant(null, null);
  if (TYPED_LITERALS[type]) {
    const cell = cellOf(TYPED_LITERALS[type], node.value);
    if (isError(cell)) throw invalidQuery(`Invalid ${TYPED_LITERALS[type]} literal: ${String(node.value)}${placed(node)}`);
    return { type: TYPED_LITERALS[type], constant: false, run: () => cell };
  }
  if (type === 'param') {
    const parameter = parameterNamed(scope.context.sql, scope.context.params, String(node.value));
    return constant(parameter.sqlType, parameter.value);
  }
  if (type === 'column_ref') {
    const name = columnName(node);
    if (node.table && !same(node.table, scope.alias)) throw invalidQuery(`Unrecognized name: ${node.table}${placed(node)}`);
    const field = scope.fields.find((candidate) => same(candidate.name, name));
    if (!field)
      throw invalidQuery(
        node.table ? `Name ${name} not found inside ${node.table}${placed(node)}` : `Unrecognized name: ${name}${placed(node)}`,
      );
    scope.used.add(field.name);
    const key = field.name;
    return { type: standardType(field.type), constant: false, run: (row) => row[key] ?? null };
  }
  if (type === 'unary_expr') {
    const operand = compile(node.expr!, scope);
    if (node.operator?.toUpperCase() === 'NOT') return negation(operand, node);
    if (node.operator !== '-' || (operand.type && !isNumberType(operand.type)))
      throw invalidQuery(`No matching signature for operator ${node.operator} for argument types: ${operand.type}${placed(node)}`);
    return {
      ...operand,
      run: (row) => {
        const cell = operand.run(row);
        if (cell instanceof Numeric) return new Numeric(cell.text.startsWith('-') ? cell.text.slice(1) : `-${cell.text}`);
        return typeof cell === 'number' ? -cell : null;
      },
    };
  }
  if (type === 'binary_expr') return compileBinary(node, scope);
  if (type === 'function') {
    const { name: named } = node;
    const name = (
      typeof named === 'string' ? named : [named?.schema?.value, ...(named?.name ?? []).map((part) => part.value)].filter(Boolean).join('.')
    ).toUpperCase();
    if (node.over) throw unsupported('window functions');
    const known = FUNCTIONS[name];
    if (!known)
      throw invalidQuery(
        `Function not found: ${name}${placed(node)} (the sandbox's BigQuery knows IFNULL, COALESCE, CURRENT_DATE() and CURRENT_TIMESTAMP())`,
      );
    const args = (node.args?.value ?? []).map((arg) => compile(arg, scope));
    if (known.arity !== undefined && args.length !== known.arity)
      throw invalidQuery(`Number of arguments does not match for function ${name}${placed(node)}`);
    return known.call(args, node);
  }
  if (type === 'aggr_func') throw unsupported(`aggregate functions (${String(node.name)})`);
  throw unsupported(`${type.replace(/_/g, ' ').toUpperCase()} expressions`);
}

/** A table as a relation: its rows as stored, and the columns a query reads of it. */
function tableRelation(table: Table): Relation {
  return {
    fields: table.fields,
    rows: () => table.rows,
    scans: (needed) => [{ table, columns: needed ?? new Set(table.fields.map((field) => field.name)) }],
  };
}

/** What a FROM item reads, and the alias it goes by (a subquery without one has none). */
function fromOf(from: FromNode, context: SelectContext): { relation: Relation; alias: string | null } {
  if (from.expr?.ast) return { relation: planSelect(from.expr.ast, context), alias: from.as ?? null };
  if (from.type === 'unnest' || !from.table) throw unsupported('UNNEST or a FROM of this kind');
  const path = [from.db, from.schema, from.table].filter((part): part is string => Boolean(part)).flatMap((part) => part.split('.'));
  const named = path.length === 1 ? context.named.get(path[0]!.toLowerCase()) : undefined;
  return { relation: named ?? tableRelation(context.table(path)), alias: from.as ?? path[path.length - 1]! };
}

/** A cell as a plain value that orders as BigQuery orders it (a column's cells are all of one type). */
function sortKey(cell: Cell): string | number | boolean | null {
  if (cell instanceof Timestamp) return cell.micros;
  if (cell instanceof Numeric) return Number(cell.text);
  return cell;
}

function refuseOutsideSubset(ast: SelectNode) {
  if (ast._next) throw unsupported('UNION, INTERSECT or EXCEPT');
  if (ast.distinct) throw unsupported('SELECT DISTINCT');
  if (ast.groupby) throw unsupported('GROUP BY');
  if (ast.having) throw unsupported('HAVING');
  if (ast.qualify || ast.window) throw unsupported('window functions');
  if (!ast.from?.length) throw unsupported('a SELECT without FROM');
  if (ast.from.length > 1 || ast.from[0]!.join) throw unsupported('JOINs');
}

/** Checks a SELECT (names, functions, operand types) before anything runs, and plans its run. */
export function planSelect(ast: SelectNode, outer: SelectContext): Relation {
  refuseOutsideSubset(ast);
  const named = new Map(outer.named);
  const context = { ...outer, named };
  for (const entry of ast.with ?? []) named.set(entry.name.value.toLowerCase(), planSelect(entry.stmt.ast, context));
  const { relation: source, alias } = fromOf(ast.from![0]!, context);
  const scope = (used: Set<string>): Scope => ({ alias, fields: source.fields, context, used });

  // Each result column, with the source columns it reads; `always` are those WHERE and ORDER BY read.
  const fields: Field[] = [];
  const outputs: Array<{ column: string | null; uses: Set<string>; run(row: Row): Cell }> = [];
  const always = new Set<string>();
  let anonymous = 0;
  for (const item of ast.columns) {
    if (item.type === 'except' || item.type === 'replace') throw unsupported('SELECT * EXCEPT or REPLACE');
    const expr = item.expr;
    if (expr.type === 'column_ref' && columnName(expr) === '*') {
      if (expr.table && !same(expr.table, alias)) throw invalidQuery(`Unrecognized name: ${expr.table}${placed(expr)}`);
      for (const field of source.fields) {
        fields.push(resultField(field.name, standardType(field.type) ?? 'STRING', field.mode ?? 'NULLABLE'));
        outputs.push({ column: field.name, uses: new Set([field.name]), run: (row) => row[field.name] ?? null });
      }
      continue;
    }
    const uses = new Set<string>();
    const compiled = compile(expr, scope(uses));
    const as = typeof item.as === 'string' ? item.as : (item.as?.value ?? null);
    fields.push(resultField(as ?? (expr.type === 'column_ref' ? columnName(expr) : `f${anonymous++}_`), compiled.type ?? 'INT64'));
    outputs.push({ column: null, uses, run: compiled.run });
  }
  const where = ast.where ? compile(ast.where, scope(always)) : null;
  if (where?.type && where.type !== 'BOOL')
    throw invalidQuery(`WHERE clause should return type BOOL, but returns ${where.type}${placed(ast.where!)}`);
  // ORDER BY names a result column (by its name or alias) or any expression of the source.
  const order = (ast.orderby ?? []).map(({ expr, type }) => {
    const output = expr.type === 'column_ref' && !expr.table ? fields.findIndex((field) => same(field.name, columnName(expr))) : -1;
    if (output >= 0) outputs[output]!.uses.forEach((name) => always.add(name));
    const run = output >= 0 ? outputs[output]!.run : compile(expr, scope(always)).run;
    return { run, direction: type?.toUpperCase() === 'DESC' ? -1 : 1 };
  });
  const [limit, offset] = (ast.limit?.value ?? []).map((part) => Number(part.value));
  const page = { limit: limit ?? null, offset: ast.limit?.seperator.toLowerCase() === 'offset' ? (offset ?? 0) : 0 };
  const identity =
    outputs.length === source.fields.length && outputs.every((output, index) => output.column === source.fields[index]!.name);

  return {
    fields,
    scans(needed) {
      const used = new Set(always);
      outputs.forEach((output, index) => {
        if (!needed || needed.has(fields[index]!.name)) output.uses.forEach((name) => used.add(name));
      });
      return source.scans(used);
    },
    rows() {
      let rows = where ? source.rows().filter((row) => where.run(row) === true) : source.rows();
      if (order.length > 0) {
        const keyed = rows.map((row) => ({ row, key: order.map(({ run }) => sortKey(run(row))) }));
        keyed.sort((a, b) => {
          for (let index = 0; index < order.length; index++) {
            const [left, right] = [a.key[index]!, b.key[index]!];
            // NULLs first ascending, last descending, as BigQuery orders them.
            const compared = left === right ? 0 : left === null ? -1 : right === null ? 1 : left < right ? -1 : 1;
            if (compared !== 0) return compared * order[index]!.direction;
          }
          return 0;
        });
        rows = keyed.map(({ row }) => row);
      }
      if (page.limit !== null || page.offset > 0)
        rows = rows.slice(page.offset, page.limit === null ? undefined : page.offset + page.limit);
      // Rows are never changed in place, so SELECT * hands on the source's row objects.
      if (identity) return rows;
      return rows.map((row) => {
        const projected: Row = {};
        fields.forEach((field, index) => {
          projected[field.name] = outputs[index]!.run(row);
        });
        return projected;
      });
    },
  };
}
