import { useState } from 'react';
import Alert from '@/components/ui/Alert';
import { draftOf, mappingOf } from '@/components/conversions/mapping';
import MappingFields from '@/components/conversions/MappingFields';
import { FailureAlert, formFailureOf, useCheckedSubmit } from '@/components/ui/failures';
import { updateErrors, useSchemas } from '@/components/conversions/validation';
import SaveCancel from '@/components/ui/SaveCancel';
import NameField from '@/components/ui/NameField';
import { isWarehouseSource, type Conversion } from '@/lib/shared/conversions/conversion';
import type { UpdateConversionInput } from '@/lib/shared/schemas/conversions';
import { useUpdateConversionMutation } from '@/store/conversionsApi';

/** Name and mapping, edited together (the configuration page loads it on Edit). */
export default function EditMappingForm({
  orgId,
  conversion,
  onDone,
}: {
  orgId: string;
  conversion: Conversion;
  onDone: (saved: boolean) => void;
}) {
  useSchemas();
  const [name, setName] = useState(conversion.name);
  const [mapping, setMapping] = useState(() => draftOf(conversion.mapping));
  const [save, saving] = useUpdateConversionMutation();
  const { errors, submit } = useCheckedSubmit(
    updateErrors,
    (changes: UpdateConversionInput) => save({ orgId, id: conversion.id, changes }),
    () => onDone(true),
  );
  const failure = formFailureOf(saving.error);
  // A warehouse conversion's mapping may be refused for its columns (`source.columns.msclkid`), not shown in this form.
  const elsewhere = Object.entries(errors).flatMap(([key, messages]) => (key === 'name' || key.startsWith('mapping') ? [] : messages));
  return (
    <form
      className="stack card"
      onSubmit={(event) => void submit(event, { name, mapping: mappingOf(mapping) })}
      noValidate
      aria-label="Edit the name and mapping"
    >
      <NameField value={name} onChange={setName} errors={errors} />
      <MappingFields draft={mapping} onChange={setMapping} errors={errors} eventNames={!isWarehouseSource(conversion.source)} />
      {elsewhere.length > 0 && <Alert>{elsewhere.join(' ')}</Alert>}
      {failure && <FailureAlert orgId={orgId} error={failure} fallback="Could not save the conversion." />}
      <SaveCancel busy={saving.isLoading} onCancel={() => onDone(false)} />
    </form>
  );
}
