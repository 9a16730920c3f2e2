/** Column headings; unless `actions` is false, a last, unlabelled column holds each row's actions. */
export default function TableHead({ columns, actions = true }: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
