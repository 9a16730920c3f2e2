import ThresholdForm, { type ThresholdField } from '@/components/conversions/ThresholdForm';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import SectionTitle from '@/components/ui/SectionTitle';
import { DEFAULT_FAILURE_THRESHOLD, type FailureThreshold } from '@/lib/shared/alerts';
import { useAlertThresholdQuery, useSaveAlertThresholdMutation } from '@/store/alertsApi';

const FIELDS: ReadonlyArray<ThresholdField<keyof FailureThreshold>> = [
  { name: 'percent', label: 'Share refused (%)', min: 1, max: 100 },
  { name: 'minEvents', label: 'Of at least (events)', min: 1 },
];

/** When this conversion alerts: the refused share of the last hour's events, from how many events on. */
export default function AlertThreshold({ orgId, id, canEdit }: { orgId: string; id: string; canEdit: boolean }) {
  const { data, isLoading, error } = useAlertThresholdQuery({ orgId, id });
  const [save, saving] = useSaveAlertThresholdMutation();
  return (
    <section className="stack" aria-labelledby="alert-threshold-title">
      <SectionTitle id="alert-threshold-title">Alerts</SectionTitle>
      <p className="muted" style={{ margin: 0 }}>
        The team is alerted when the events rejected, not sent or failed over the last hour reach this share (by default{' '}
        {DEFAULT_FAILURE_THRESHOLD.percent} % of at least {DEFAULT_FAILURE_THRESHOLD.minEvents} events), and once more when it falls back.
      </p>
      {isLoading ? (
        <Spinner label="Loading the alert threshold" />
      ) : error || !data ? (
        <Alert>{messageOf(error, 'The alert threshold could not be loaded.')}</Alert>
      ) : (
        <ThresholdForm
          fields={FIELDS}
          saved={data}
          canEdit={canEdit}
          save={(threshold) => save({ orgId, id, threshold })}
          saving={saving}
        />
      )}
    </section>
  );
}
