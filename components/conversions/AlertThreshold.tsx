import Link from 'next/link';
import { useRouter } from 'next/router';
import ThresholdForm, { type ThresholdField } from '@/components/conversions/ThresholdForm';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import SectionTitle from '@/components/ui/SectionTitle';
import { DEFAULT_FAILURE_THRESHOLD } from '@/lib/shared/alerts';
import { OUTCOMES } from '@/lib/shared/outcomes';
import { useAlertThresholdQuery, useSaveAlertThresholdMutation } from '@/store/alertsApi';
import { useConversionReconciliationQuery, useSaveCountedThresholdMutation } from '@/store/reconciliationApi';

type Name = 'percent' | 'minEvents' | 'threshold';

const DELIVERY_FIELDS: ReadonlyArray<ThresholdField<Name>> = [
  { name: 'percent', label: `Share ${OUTCOMES.not_sent.word} or ${OUTCOMES.failed.word} (%)`, min: 1, max: 100 },
  { name: 'minEvents', label: 'Of at least (events)', min: 1 },
];
const COUNTED_FIELD: ThresholdField<Name> = { name: 'threshold', label: 'Alert when the share received falls under (%)', min: 1, max: 100 };

/**
 * When this conversion alerts, in one form with one Save: the share of the last hour's events not sent or failed
 * (from how many events on), and for an ad platform the share of what was sent that the platform received over
 * the last 7 final days ("Counted by the platform"). Each number is saved through its own API; a refused one is
 * shown on its field.
 */
export default function AlertThreshold({ orgId, id, canEdit, counted }: { orgId: string; id: string; canEdit: boolean; counted: boolean }) {
  const router = useRouter();
  const delivery = useAlertThresholdQuery({ orgId, id });
  const received = useConversionReconciliationQuery({ orgId, id }, { skip: !counted });
  const [saveDelivery, savingDelivery] = useSaveAlertThresholdMutation();
  const [saveCounted, savingCounted] = useSaveCountedThresholdMutation();
  const isLoading = delivery.isLoading || (counted && received.isLoading);
  const error = delivery.error ?? (counted ? received.error : undefined);
  const countedTab = { pathname: router.pathname, query: { ...router.query, tab: 'counted' } };

  async function save(values: Record<Name, number>): Promise<{ error?: unknown }> {
    const first = await saveDelivery({ orgId, id, threshold: { percent: values.percent, minEvents: values.minEvents } });
    if ('error' in first && first.error !== undefined) return { error: first.error };
    if (!counted) return {};
    const second = await saveCounted({ orgId, id, threshold: values.threshold });
    return 'error' in second && second.error !== undefined ? { error: second.error } : {};
  }

  return (
    <section className="stack" aria-labelledby="alert-threshold-title">
      <SectionTitle id="alert-threshold-title">Alerts</SectionTitle>
      <p className="muted" style={{ margin: 0 }}>
        The team is alerted when the events {OUTCOMES.not_sent.word} or {OUTCOMES.failed.word} over the last hour reach this share (by
        default {DEFAULT_FAILURE_THRESHOLD.percent} % of at least {DEFAULT_FAILURE_THRESHOLD.minEvents} events), and once more when it falls
        back.
        {counted && (
          <>
            {' '}
            And when the platform received less than its share of what the conversion sent over the last 7 final days (at least 10 events;
            see{' '}
            <Link href={countedTab} shallow scroll={false}>
              Counted
            </Link>
            ).
          </>
        )}
      </p>
      {isLoading ? (
        <Spinner label="Loading the alert thresholds" />
      ) : error || !delivery.data || (counted && !received.data) ? (
        <Alert>{messageOf(error, 'The alert thresholds could not be loaded.')}</Alert>
      ) : (
        <ThresholdForm
          fields={counted ? [...DELIVERY_FIELDS, COUNTED_FIELD] : DELIVERY_FIELDS}
          saved={{ ...delivery.data, threshold: received.data?.threshold ?? 0 }}
          canEdit={canEdit}
          save={save}
          saving={{ isLoading: savingDelivery.isLoading || savingCounted.isLoading, error: savingDelivery.error ?? savingCounted.error }}
        />
      )}
    </section>
  );
}
