/**
 * The MERGE statements SignalBridge sends, recognised by their shape rather than parsed as SQL: the ad
 * performance writer's (lib/server/connectors/bigquery/writer.ts: update matched keys, insert new ones,
 * delete the slice's rows the staging table lacks) and the conversion delivery's (delivery.ts: insert
 * the staged events the table lacks). That is:
 *
 *   MERGE `p.d.table` T USING `p.d.staging` S
 *   ON <conditions>
 *   [WHEN MATCHED THEN UPDATE SET c = S.c, …]
 *   WHEN NOT MATCHED [BY TARGET] THEN INSERT (c, …) VALUES (S.c, …)
 *   [WHEN NOT MATCHED BY SOURCE [AND <conditions>] THEN DELETE]
 *
 * where a condition is `T.c = S.c`, `IFNULL(T.c, '') = IFNULL(S.c, '')`, `T.c = @p` or
 * `T.c BETWEEN @p AND @q`, joined by AND. Names, parameters and types are checked as BigQuery checks
 * them; a MERGE of another shape is refused as invalidQuery.
 */
import type { Prepared, QueryOutcome } from '@/sandbox/bigquery/select';
import {
  comparable,
  compareCells,
  invalidQuery,
  isNumberType,
  Numeric,
  parameterNamed,
  standardType,
  Timestamp,
  type Cell,
  type Field,
  type Parameter,
  type Row,
} from '@/sandbox/bigquery/values';
import type { Table } from '@/sandbox/bigquery/warehouse';

const SHAPE = /^\s*MERGE\s+(?:INTO\s+)?`([^`]+)`\s+T\s+USING\s+`([^`]+)`\s+S\s+ON\s+([\s\S]+?)\s+(WHEN\s[\s\S]*?)\s*;?\s*$/i;
const UPDATE = /^WHEN\s+MATCHED\s+THEN\s+UPDATE\s+SET\s+([\s\S]+)$/i;
const INSERT = /^WHEN\s+NOT\s+MATCHED(?:\s+BY\s+TARGET)?\s+THEN\s+INSERT\s*\(([^)]*)\)\s*VALUES\s*\(([^)]*)\)$/i;
const DELETE = /^WHEN\s+NOT\s+MATCHED\s+BY\s+SOURCE(?:\s+AND\s+([\s\S]+?))?\s+THEN\s+DELETE$/i;
const ATOM =
  /\s*(?:IFNULL\(T\.(\w+),\s*''\)\s*=\s*IFNULL\(S\.(\w+),\s*''\)|T\.(\w+)\s*=\s*S\.(\w+)|T\.(\w+)\s*=\s*@(\w+)|T\.(\w+)\s+BETWEEN\s+@(\w+)\s+AND\s+@(\w+))\s*(?:AND\s|$)/iy;

/** ON (or WHEN … AND) conditions: keys equal on both sides (NULL as '' when IFNULL'd), target columns within parameters. */
interface Conditions {
  keys: Array<{ target: string; source: string; nullAsEmpty: boolean }>;
  ranges: Array<{ column: string; low: string; high: string }>;
}

function conditionsOf(text: string): Conditions | null {
  const conditions: Conditions = { keys: [], ranges: [] };
  ATOM.lastIndex = 0;
  while (ATOM.lastIndex < text.length) {
    const match = ATOM.exec(text);
    if (!match || match[0] === '') return null;
    if (match[1]) conditions.keys.push({ target: match[1], source: match[2]!, nullAsEmpty: true });
    else if (match[3]) conditions.keys.push({ target: match[3], source: match[4]!, nullAsEmpty: false });
    else if (match[5]) conditions.ranges.push({ column: match[5], low: match[6]!, high: match[6]! });
    else conditions.ranges.push({ column: match[7]!, low: match[8]!, high: match[9]! });
  }
  return conditions;
}

interface Assignment {
  column: string;
  from: string;
}

/** The parts of one of our MERGEs, or null when the statement has another shape. */
function shapeOf(sql: string) {
  const shape = SHAPE.exec(sql);
  const on = shape ? conditionsOf(shape[3]!.trim()) : null;
  if (!shape || !on) return null;
  let update: Assignment[] | null = null;
  let insert: Assignment[] | null = null;
  let deleteUnmatched: Conditions | null = null;
  for (const clause of shape[4]!.split(/\s+(?=WHEN\s)/i)) {
    let match: RegExpExecArray | null;
    if ((match = UPDATE.exec(clause)) && !update) {
      update = [];
      for (const pair of match[1]!.split(',')) {
        const set = /^\s*(\w+)\s*=\s*S\.(\w+)\s*$/i.exec(pair);
        if (!set) return null;
        update.push({ column: set[1]!, from: set[2]! });
      }
    } else if ((match = INSERT.exec(clause)) && !insert) {
      const columns = match[1]!.split(',').map((column) => column.trim());
      const values = match[2]!.split(',').map((value) => /^\s*S\.(\w+)\s*$/i.exec(value)?.[1]);
      if (values.some((value) => !value)) return null;
      if (columns.length !== values.length) throw invalidQuery('Inserted row has wrong column count');
      insert = columns.map((column, index) => ({ column, from: values[index]! }));
    } else if ((match = DELETE.exec(clause)) && !deleteUnmatched) {
      deleteUnmatched = match[1] ? conditionsOf(match[1].trim()) : { keys: [], ranges: [] };
      if (!deleteUnmatched || deleteUnmatched.keys.length > 0) return null;
    } else return null;
  }
  return { target: shape[1]!.split('.'), source: shape[2]!.split('.'), on, update, insert, deleteUnmatched };
}

/** A value stored in a column of another number type, as BigQuery coerces it (INT64 into FLOAT64 or NUMERIC). */
const stored = (cell: Cell, type: string | null): Cell =>
  typeof cell === 'number' && (type === 'NUMERIC' || type === 'BIGNUMERIC') ? new Numeric(String(cell)) : cell;

/** Checks one of our MERGEs (its tables, columns, parameters and types) and plans its run. */
export function planMerge(
  sql: string,
  context: { params: Map<string, Parameter>; table(path: string[]): Table; writable(table: Table): void },
): Prepared {
  const shape = shapeOf(sql);
  if (!shape)
    throw invalidQuery(
      "The sandbox's BigQuery runs only the MERGE statements SignalBridge sends (MERGE `table` T USING `staging` S ON … WHEN …); this one has another shape",
    );
  const target = context.table(shape.target);
  const source = context.table(shape.source);
  context.writable(target);
  const fieldOf = (table: Table, alias: 'T' | 'S', name: string): Field => {
    const field = table.fields.find((candidate) => candidate.name === name);
    if (!field) throw invalidQuery(`Name ${name} not found inside ${alias}`);
    return field;
  };
  const typeOf = (table: Table, alias: 'T' | 'S', name: string) => standardType(fieldOf(table, alias, name).type);
  const parameter = (name: string) => parameterNamed(sql, context.params, name);
  const checkRanges = (conditions: Conditions) => {
    for (const range of conditions.ranges) {
      const types = [typeOf(target, 'T', range.column), parameter(range.low).sqlType, parameter(range.high).sqlType];
      const operator = range.low === range.high ? '=' : 'BETWEEN';
      if (!types.every((type) => comparable(types[0]!, type)))
        throw invalidQuery(
          `No matching signature for operator ${operator} for argument types: ${types.slice(0, operator === '=' ? 2 : 3).join(', ')}`,
        );
    }
  };
  for (const key of shape.on.keys) {
    const types = [typeOf(target, 'T', key.target), typeOf(source, 'S', key.source)];
    const wrongIfnull = key.nullAsEmpty && types.find((type) => type !== 'STRING');
    if (wrongIfnull) throw invalidQuery(`No matching signature for function IFNULL for argument types: ${wrongIfnull}, STRING`);
    if (!comparable(types[0]!, types[1]!))
      throw invalidQuery(`No matching signature for operator = for argument types: ${types.join(', ')}. Supported signature: ANY = ANY`);
  }
  checkRanges(shape.on);
  if (shape.deleteUnmatched) checkRanges(shape.deleteUnmatched);
  for (const { column, from } of [...(shape.update ?? []), ...(shape.insert ?? [])]) {
    const [into, given] = [typeOf(target, 'T', column), typeOf(source, 'S', from)];
    if (into !== given && !(given === 'INT64' && isNumberType(into)))
      throw invalidQuery(`Value of type ${given} cannot be assigned to ${column}, which has type ${into}`);
  }

  // BigQuery bills a MERGE the columns it reads of the source, and the whole target when it updates or deletes rows.
  const everyColumn = (table: Table) => new Set(table.fields.map((field) => field.name));
  const rewrites = Boolean(shape.update || shape.deleteUnmatched);
  const assigned = [...(shape.update ?? []), ...(shape.insert ?? [])];
  return {
    statementType: 'MERGE',
    scans: [
      {
        table: target,
        columns: rewrites
          ? everyColumn(target)
          : new Set([...shape.on.keys.map((key) => key.target), ...shape.on.ranges.map((range) => range.column)]),
      },
      { table: source, columns: new Set([...shape.on.keys.map((key) => key.source), ...assigned.map((assignment) => assignment.from)]) },
    ],
    run: () => runMerge(shape, target, source, context.params),
  };
}

/** Runs a checked MERGE: the target's rows are replaced at once, or not at all when a row fails. */
function runMerge(
  shape: NonNullable<ReturnType<typeof shapeOf>>,
  target: Table,
  source: Table,
  params: Map<string, Parameter>,
): QueryOutcome {
  const within = (row: Row, conditions: Conditions) =>
    conditions.ranges.every((range) => {
      const cell = row[range.column] ?? null;
      const [above, below] = [compareCells(cell, params.get(range.low)!.value), compareCells(cell, params.get(range.high)!.value)];
      return above !== null && below !== null && above >= 0 && below <= 0;
    });
  // The ON keys as a hash key (as BigQuery joins): a MERGE costs the rows it touches, not table × staged rows.
  // SQL's = is never true with a NULL on either side: such a row matches nothing.
  const keyOf = (row: Row, side: 'target' | 'source') => {
    const parts: string[] = [];
    for (const key of shape.on.keys) {
      const cell = row[key[side]] ?? (key.nullAsEmpty ? '' : null);
      if (cell === null) return null;
      parts.push(String(cell instanceof Timestamp ? cell.micros : cell instanceof Numeric ? cell.text : cell));
    }
    return JSON.stringify(parts);
  };
  const index = new Map<string, number[]>();
  source.rows.forEach((row, position) => {
    const key = keyOf(row, 'source');
    if (key === null) return;
    const list = index.get(key);
    if (list) list.push(position);
    else index.set(key, [position]);
  });
  const matched = new Set<number>();
  const stats = { inserted: 0, updated: 0, deleted: 0 };
  const kept: Row[] = [];
  const typeIn = (name: string) => standardType(target.fields.find((field) => field.name === name)!.type);
  for (const row of target.rows) {
    const key = within(row, shape.on) ? keyOf(row, 'target') : null;
    const matches = key === null ? [] : (index.get(key) ?? []);
    if (matches.length > 0) {
      matches.forEach((position) => matched.add(position));
      if (!shape.update) kept.push(row);
      else if (matches.length > 1)
        return { statementType: 'MERGE', runtimeError: 'UPDATE/MERGE must match at most one source row for each target row' };
      else {
        const next = { ...row };
        for (const { column, from } of shape.update) next[column] = stored(source.rows[matches[0]!]![from] ?? null, typeIn(column));
        kept.push(next);
        stats.updated += 1;
      }
    } else if (shape.deleteUnmatched && within(row, shape.deleteUnmatched)) stats.deleted += 1;
    else kept.push(row);
  }
  if (shape.insert) {
    for (const [position, row] of source.rows.entries()) {
      if (matched.has(position)) continue;
      const inserted: Row = Object.fromEntries(target.fields.map((field) => [field.name, null]));
      for (const { column, from } of shape.insert) inserted[column] = stored(row[from] ?? null, typeIn(column));
      const missing = target.fields.find((field) => field.mode === 'REQUIRED' && inserted[field.name] === null);
      if (missing) return { statementType: 'MERGE', runtimeError: `Required field ${missing.name} cannot be NULL` };
      kept.push(inserted);
      stats.inserted += 1;
    }
  }
  target.rows = kept;
  target.lastModifiedTime = Date.now();
  return { statementType: 'MERGE', dml: stats };
}
