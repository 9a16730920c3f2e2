/** A field's error under it, with the id its input names in aria-describedby; nothing without an error. */
export default function FieldError({ id, error }: { id: string; error?: string | null }) {
  return error ? (
    <span id={id} className="field__error">
      {error}
    </span>
  ) : null;
}
