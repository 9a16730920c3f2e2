import type { ComponentProps } from 'react';
import ReviewSummary from '@/components/conversions/ReviewSummary';
import { FailureAlert, formFailureOf } from '@/components/ui/failures';
import NameField from '@/components/ui/NameField';

interface ReviewStepProps {
  summary: ComponentProps<typeof ReviewSummary>;
  orgId: string;
  name: string;
  onName: (name: string) => void;
  errors: Record<string, string[]>;
  /** The create call's failure: one about fields shows under them, any other here. */
  error: unknown;
}

/** The last step of a new conversion: what it will do, its name, and why creating it failed. Loaded when reached. */
export default function ReviewStep({ summary, orgId, name, onName, errors, error }: ReviewStepProps) {
  const failure = formFailureOf(error);
  return (
    <>
      <ReviewSummary {...summary} />
      <NameField value={name} onChange={onName} errors={errors} />
      {failure && <FailureAlert orgId={orgId} error={failure} fallback="Could not create the conversion." />}
    </>
  );
}
