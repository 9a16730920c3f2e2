/**
 * The sandbox BigQuery's values: column types, cells as it stores them, their wire and billing forms,
 * comparisons as BigQuery types them, query parameters, and errors in Google's JSON API shape.
 */

export type Json = Record<string, unknown>;

export type FieldType = 'STRING' | 'INT64' | 'FLOAT64' | 'NUMERIC' | 'BIGNUMERIC' | 'BOOL' | 'DATE' | 'DATETIME' | 'TIMESTAMP';

export interface Field {
  name: string;
  type: string;
  mode?: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  description?: string;
}

/** An exact decimal (NUMERIC / BIGNUMERIC), kept as BigQuery prints it. */
export class Numeric {
  constructor(readonly text: string) {}
}
/** A TIMESTAMP in microseconds since the epoch. */
export class Timestamp {
  constructor(readonly micros: number) {}
}

export type Cell = null | string | number | boolean | Numeric | Timestamp;
export type Row = Record<string, Cell>;

const TYPE_ALIASES: Record<string, FieldType> = {
  STRING: 'STRING',
  INT64: 'INT64',
  INTEGER: 'INT64',
  FLOAT64: 'FLOAT64',
  FLOAT: 'FLOAT64',
  NUMERIC: 'NUMERIC',
  BIGNUMERIC: 'BIGNUMERIC',
  BOOL: 'BOOL',
  BOOLEAN: 'BOOL',
  DATE: 'DATE',
  DATETIME: 'DATETIME',
  TIMESTAMP: 'TIMESTAMP',
};

/** A schema type in its standard SQL name, or null when the sandbox does not know it. */
export const standardType = (type: string): FieldType | null => TYPE_ALIASES[type.toUpperCase()] ?? null;

/** A decimal as BigQuery prints NUMERIC: at most 9 fractional digits, no trailing zeros. */
function decimalText(value: number | string): string | null {
  const number = typeof value === 'number' ? value : /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(number)) return null;
  if (typeof value === 'string' && /^[-+]?\d+(\.\d{0,9})?$/.test(value.trim())) {
    const [whole, fraction = ''] = value.trim().replace(/^\+/, '').split('.');
    const trimmed = fraction.replace(/0+$/, '');
    const integer = whole!.replace(/^(-?)0+(?=\d)/, '$1');
    const text = trimmed ? `${integer}.${trimmed}` : integer;
    return text === '-0' ? '0' : text;
  }
  const text = number.toFixed(9).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const validDate = (value: string) => {
  const match = DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
};

const DATETIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/;

/** A DATETIME in one form ('YYYY-MM-DDTHH:MM:SS[.ffffff]', no trailing zeros), so that text order is time order; null when it is none. */
function datetimeText(value: string): string | null {
  const match = DATETIME.exec(value.trim());
  if (!match || !validDate(match[1]!)) return null;
  const [hours, minutes, seconds] = [match[2] ?? '00', match[3] ?? '00', match[4] ?? '00'];
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
  const fraction = (match[5] ?? '').replace(/0+$/, '');
  return `${match[1]}T${hours}:${minutes}:${seconds}${fraction ? `.${fraction}` : ''}`;
}

/** A timestamp from text (ISO, or "YYYY-MM-DD HH:MM:SS[.ffffff] [UTC]") or seconds since the epoch. */
export function timestampOf(value: unknown): Timestamp | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Timestamp(Math.round(value * 1e6));
  if (typeof value !== 'string') return null;
  const text = value
    .trim()
    .replace(/ UTC$/, 'Z')
    .replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
  const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) || !text.includes('T') ? text : `${text}Z`);
  if (Number.isNaN(ms)) return null;
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
  const micros = Math.floor(ms / 1000) * 1e6 + Number(fraction.padEnd(6, '0').slice(0, 6) || 0);
  return new Timestamp(micros);
}

/** BigQuery's words for a loaded value a column's type cannot hold. */
function conversionError(value: unknown, kind: string): { error: string } {
  const shown =
    typeof value === 'string' ? `string_value: "${value}"` : typeof value === 'number' ? `double_value: ${value}` : JSON.stringify(value);
  return { error: `Could not convert value '${shown}' to ${kind}.` };
}

/** A loaded JSON value as a cell of `type`, or the reason it cannot be one. */
export function cellOf(type: FieldType, value: unknown): Cell | { error: string } {
  if (value === null || value === undefined) return null;
  // No closures here: this runs for every loaded cell.
  switch (type) {
    case 'STRING':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return conversionError(value, 'string');
    case 'DATETIME':
      return (typeof value === 'string' ? datetimeText(value) : null) ?? conversionError(value, 'datetime');
    case 'INT64': {
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
        // Past 2^53 a JavaScript number rounds: such a value is kept as its digits, and sent on the wire as
        // BigQuery sends every INT64 (a string), so a client that reads it as a number is the one to round.
        return Number.isSafeInteger(Number(value)) ? Number(value) : new Numeric(value.trim());
      }
      return conversionError(value, 'integer');
    }
    case 'FLOAT64': {
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return conversionError(value, 'double');
    }
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const text = typeof value === 'number' || typeof value === 'string' ? decimalText(value) : null;
      return text === null ? conversionError(value, 'NUMERIC') : new Numeric(text);
    }
    case 'BOOL':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return conversionError(value, 'boolean');
    case 'DATE':
      return typeof value === 'string' && validDate(value) ? value : conversionError(value, 'date');
    case 'TIMESTAMP':
      return timestampOf(value) ?? conversionError(value, 'timestamp');
  }
}

/** A cell in BigQuery's REST form (`v`): every value a string, timestamps as micros or float seconds. */
export function wireOf(cell: Cell, int64Timestamps: boolean): string | null {
  if (cell === null) return null;
  if (cell instanceof Numeric) return cell.text;
  if (cell instanceof Timestamp) return int64Timestamps ? String(cell.micros) : String(cell.micros / 1e6);
  return String(cell);
}

/** A cell as tests and the sandbox page read it: INT64/FLOAT64 numbers, NUMERIC a decimal string, DATE text, TIMESTAMP ISO. */
export function plainOf(cell: Cell): unknown {
  if (cell instanceof Numeric) return cell.text;
  if (cell instanceof Timestamp) return new Date(Math.floor(cell.micros / 1000)).toISOString();
  return cell;
}

/** Bytes a non-NULL cell of each fixed-size type takes, as BigQuery counts them for billing (STRING is 2 + its UTF-8 length). */
const CELL_BYTES: Record<Exclude<FieldType, 'STRING'>, number> = {
  INT64: 8,
  FLOAT64: 8,
  TIMESTAMP: 8,
  DATE: 8,
  DATETIME: 8,
  BOOL: 1,
  NUMERIC: 16,
  BIGNUMERIC: 32,
};

/** The bytes of one column over `rows`, as BigQuery sizes data: what a query reading it processes. */
export function columnBytes(rows: Row[], field: Field): number {
  const type = standardType(field.type) ?? 'STRING';
  let total = 0;
  if (type === 'STRING') {
    for (const row of rows) {
      const cell = row[field.name];
      if (cell !== null && cell !== undefined) total += 2 + Buffer.byteLength(String(cell));
    }
    return total;
  }
  const size = CELL_BYTES[type];
  for (const row of rows) if (row[field.name] !== null && row[field.name] !== undefined) total += size;
  return total;
}

// ---------------------------------------------------------------------------------------------
// Errors in Google's JSON API shape

export class BigQueryError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly location?: string,
  ) {
    super(message);
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  500: 'INTERNAL',
};

export const errorBody = (error: BigQueryError) => ({
  error: {
    code: error.code,
    message: error.message,
    errors: [
      {
        message: error.message,
        domain: 'global',
        reason: error.reason,
        ...(error.location ? { location: error.location, locationType: 'other' } : {}),
      },
    ],
    status: STATUS_TEXT[error.code] ?? 'UNKNOWN',
  },
});

export const notFound = (what: string) => new BigQueryError(404, 'notFound', `Not found: ${what}`);
export const invalid = (message: string) => new BigQueryError(400, 'invalid', message);
export const invalidQuery = (message: string) => new BigQueryError(400, 'invalidQuery', message, 'query');

export const isError = (cell: Cell | { error: string }): cell is { error: string } =>
  cell !== null && typeof cell === 'object' && 'error' in cell;

/** -1, 0, 1, or null when either side is NULL (both sides of one kind: their types were checked). */
export function compareCells(left: Cell, right: Cell): number | null {
  if (left === null || right === null) return null;
  const a = left instanceof Numeric ? Number(left.text) : left instanceof Timestamp ? left.micros : left;
  const b = right instanceof Numeric ? Number(right.text) : right instanceof Timestamp ? right.micros : right;
  return a < b ? -1 : a > b ? 1 : 0;
}

const NUMBER_TYPES = new Set<FieldType | null>(['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC']);
export const isNumberType = (type: FieldType | null) => NUMBER_TYPES.has(type);

/** Whether BigQuery compares values of the two types: like types, or numbers (NULL compares with anything). */
export const comparable = (left: FieldType | null, right: FieldType | null) =>
  !left || !right || left === right || (isNumberType(left) && isNumberType(right));

/** "[line:column]" of an offset in the SQL, as BigQuery's messages place things. */
export function positionIn(sql: string, offset: number): string {
  const before = sql.slice(0, offset).split('\n');
  return `[${before.length}:${before[before.length - 1]!.length + 1}]`;
}

/** A named query parameter: its value and its type. */
export interface Parameter {
  value: Cell;
  sqlType: FieldType;
}

/** The named query parameters of a query's configuration. */
export function parametersOf(config: Json): Map<string, Parameter> {
  const params = new Map<string, Parameter>();
  for (const parameter of (config.queryParameters as Json[] | undefined) ?? []) {
    const name = parameter.name;
    if (typeof name !== 'string') throw invalidQuery('The sandbox supports named query parameters only (parameterMode NAMED)');
    const type = String((parameter.parameterType as Json | undefined)?.type ?? 'STRING').toUpperCase();
    const sqlType = standardType(type);
    if (!sqlType) throw invalidQuery(`Query parameter '${name}': the sandbox does not support parameters of type ${type}`);
    const cell = cellOf(sqlType, (parameter.parameterValue as Json | undefined)?.value);
    if (isError(cell)) throw invalidQuery(`Query parameter '${name}': ${cell.error}`);
    params.set(name, { value: cell, sqlType });
  }
  return params;
}

/** A parameter named in the SQL, or BigQuery's refusal placed where the SQL names it. */
export function parameterNamed(sql: string, params: Map<string, Parameter>, name: string): Parameter {
  const parameter = params.get(name);
  if (parameter) return parameter;
  const offset = sql.search(new RegExp(`@${name}\\b`));
  throw invalidQuery(`Query parameter '${name}' not found${offset < 0 ? '' : ` at ${positionIn(sql, offset)}`}`);
}
