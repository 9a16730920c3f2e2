import type { BigQuerySource } from '@/lib/shared/conversions/conversion';
import { cursorProblem, describeSource, previewRows, readRows } from '@/lib/server/connectors/bigquery/source';
import type { RowSource } from '@/lib/server/connectors/types';

/**
 * BigQuery as a conversion source (source.ts does the queries): a dry run says the columns and the
 * bytes a read processes, rows come in the order of the user's cursor column, and each page is billed.
 */

/** BigQuery types that hold a point in time: the one such column of a table is its event time. */
const TIME_TYPES = new Set(['TIMESTAMP', 'DATETIME']);

/** A statement as far as what it reads: without its comments, its white space folded. */
const statementKey = (sql: string) =>
  sql
    .replace(/--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s*;?\s*$/, '')
    .trim();

export const bigQueryRowSource: RowSource<BigQuerySource> = {
  ordered: true,
  bills: true,
  compare: () => 0,
  fieldOf: (source) => (source.mode === 'table' ? 'source.table' : 'source.sql'),
  accountOf: (source) => ({ field: 'source.projectId', id: source.projectId }),
  async describe(session, source) {
    const { columns, bytesProcessed } = await describeSource(session, source);
    return { columns, timeColumns: columns.filter((column) => TIME_TYPES.has(column.type)).map((column) => column.name), bytesProcessed };
  },
  cursorProblem,
  preview: previewRows,
  async *read(session, source, from, options = {}) {
    const { columns } = await describeSource(session, source);
    for await (const page of readRows(session, source, from, { columns, pageRows: options.pageRows })) {
      yield { rows: page.rows.map((row) => ({ cursor: String(row[source.cursorColumn]), row })), bytesBilled: page.bytesBilled };
    }
  },
  // An edit of a query's comments or layout, the byte limit, the mapping or the schedule keeps the cursor.
  coverage: (source) => [source.destinationId, source.projectId, source.mode, source.table, statementKey(source.sql), source.cursorColumn],
};
