import { useState, type FormEvent } from 'react';
import { fieldErrorsOf, formFailureOf } from '@/components/ui/failures';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import TextField from '@/components/ui/TextField';

/** One number of a threshold: its name in the API's body (and its fieldErrors), its label and bounds. */
export interface ThresholdField<K extends string> {
  name: K;
  label: string;
  min?: number;
  max?: number;
}

interface Props<K extends string> {
  fields: ReadonlyArray<ThresholdField<K>>;
  /** What is saved now: the form starts from it. */
  saved: Record<K, number>;
  /** Editors save; everyone else reads the numbers in read-only fields. */
  canEdit: boolean;
  /** The save mutation's trigger and state (RTK Query): an `error` result is shown on the fields or above. */
  save: (values: Record<K, number>) => Promise<{ error?: unknown }>;
  saving: { isLoading: boolean; error?: unknown };
}

/** A conversion's alert threshold (numbers, then Save threshold), starting from what is saved. */
export default function ThresholdForm<K extends string>({ fields, saved: initial, canEdit, save, saving }: Props<K>) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((field) => [field.name, String(initial[field.name])])),
  );
  const [saved, setSaved] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const result = await save(Object.fromEntries(fields.map((field) => [field.name, Number(values[field.name])])) as Record<K, number>);
    if (!('error' in result) || result.error === undefined) setSaved(true);
  }

  const fieldErrors = fieldErrorsOf(saving.error);
  return (
    <>
      <form className="inline-form" onSubmit={submit} noValidate>
        {fields.map((field) => (
          <TextField
            key={field.name}
            label={field.label}
            type="number"
            inputMode="numeric"
            min={field.min}
            max={field.max}
            value={values[field.name]}
            readOnly={!canEdit}
            onChange={(event) => setValues((current) => ({ ...current, [field.name]: event.target.value }))}
            error={fieldErrors[field.name]?.[0]}
          />
        ))}
        {canEdit && (
          <Button type="submit" busy={saving.isLoading}>
            Save threshold
          </Button>
        )}
      </form>
      {formFailureOf(saving.error) && <Alert>{messageOf(saving.error, 'Could not save.')}</Alert>}
      {saved && (
        <div role="status" className="alert alert--success">
          Saved.
        </div>
      )}
    </>
  );
}
