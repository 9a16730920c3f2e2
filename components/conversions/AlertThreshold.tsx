import { useState, type FormEvent } from 'react';
import { fieldErrorsOf, formFailureOf } from '@/components/ui/failures';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import TextField from '@/components/ui/TextField';
import { DEFAULT_FAILURE_THRESHOLD, type FailureThreshold } from '@/lib/shared/alerts';
import { useAlertThresholdQuery, useSaveAlertThresholdMutation } from '@/store/alertsApi';

/** The two numbers, starting from what is saved. */
function ThresholdForm({ orgId, id, canEdit, saved: initial }: { orgId: string; id: string; canEdit: boolean; saved: FailureThreshold }) {
  const [save, saving] = useSaveAlertThresholdMutation();
  const [percent, setPercent] = useState(String(initial.percent));
  const [minEvents, setMinEvents] = useState(String(initial.minEvents));
  const [saved, setSaved] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const result = await save({ orgId, id, threshold: { percent: Number(percent), minEvents: Number(minEvents) } });
    if (!('error' in result)) setSaved(true);
  }

  const fieldErrors = fieldErrorsOf(saving.error);
  return (
    <>
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextField
          label="Share refused (%)"
          type="number"
          inputMode="numeric"
          min={1}
          max={100}
          value={percent}
          readOnly={!canEdit}
          onChange={(event) => setPercent(event.target.value)}
          error={fieldErrors.percent?.[0]}
        />
        <TextField
          label="Of at least (events)"
          type="number"
          inputMode="numeric"
          min={1}
          value={minEvents}
          readOnly={!canEdit}
          onChange={(event) => setMinEvents(event.target.value)}
          error={fieldErrors.minEvents?.[0]}
        />
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

/** When this conversion alerts: the refused share of the last hour's events, from how many events on. */
export default function AlertThreshold({ orgId, id, canEdit }: { orgId: string; id: string; canEdit: boolean }) {
  const { data, isLoading, error } = useAlertThresholdQuery({ orgId, id });
  return (
    <section className="stack" aria-labelledby="alert-threshold-title">
      <h2 id="alert-threshold-title" style={{ margin: 0, fontSize: '1.1rem' }}>
        Alerts
      </h2>
      <p className="muted" style={{ margin: 0 }}>
        The team is alerted when the events rejected, not sent or failed over the last hour reach this share (by default{' '}
        {DEFAULT_FAILURE_THRESHOLD.percent} % of at least {DEFAULT_FAILURE_THRESHOLD.minEvents} events), and once more when it falls back.
      </p>
      {isLoading ? (
        <Spinner label="Loading the alert threshold" />
      ) : error || !data ? (
        <Alert>{messageOf(error, 'The alert threshold could not be loaded.')}</Alert>
      ) : (
        <ThresholdForm orgId={orgId} id={id} canEdit={canEdit} saved={data} />
      )}
    </section>
  );
}
