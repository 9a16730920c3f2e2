import dynamic from 'next/dynamic';
import Link from 'next/link';
import Choice from '@/components/conversions/Choice';
import styles from '@/components/conversions/conversions.module.css';
import { isWarehouse, rememberWarehouseHelpers, type Draft } from '@/components/conversions/createConversionDraft';
import type { WarehouseDraft } from '@/components/conversions/warehouseDraft';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import FieldError from '@/components/ui/FieldError';
import Spinner from '@/components/ui/Spinner';
import { inWords, WAREHOUSE_PLATFORMS } from '@/lib/shared/integrations/platforms';
import { useAppsQuery, useIntegrationsQuery, usePaymentsQuery } from '@/store/integrationsApi';

// The source step is in the page's first load; what a BigQuery or Mixpanel source reads loads beside it.
const WarehouseSourceFields = dynamic(() => import('@/components/conversions/WarehouseSourceFields'), {
  loading: () => <Spinner label="Loading the fields" />,
});

interface SourceStepProps {
  orgId: string;
  plan: unknown;
  draft: Draft;
  onPick: (source: string) => void;
  /** A warehouse source's new draft, once its fields have loaded. */
  onWarehouseReady: (source: string, warehouse: WarehouseDraft) => void;
  onWarehouse: (warehouse: WarehouseDraft) => void;
  errors: Record<string, string[]>;
  onErrors: (errors: Record<string, string[]>) => void;
}

export default function SourceStep({ orgId, plan, draft, onPick, onWarehouseReady, onWarehouse, errors, onErrors }: SourceStepProps) {
  const apps = useAppsQuery(orgId);
  const payments = usePaymentsQuery(orgId);
  const destinations = useIntegrationsQuery({ orgId, kind: 'destination' });
  const org = `/${encodeURIComponent(orgId)}`;
  const error = errors.source?.[0] ?? errors['source.type']?.[0] ?? errors['source.destinationId']?.[0];
  if (apps.isLoading || payments.isLoading || destinations.isLoading) return <Spinner label="Loading your sources" />;
  if (apps.error || payments.error || destinations.error)
    return <Alert>{messageOf(apps.error ?? payments.error ?? destinations.error, 'Could not load your sources.')}</Alert>;
  const appList = apps.data ?? [];
  const paymentList = payments.data ?? [];
  const warehouses = (destinations.data ?? []).filter(isWarehouse);
  const reading = warehouses.find((candidate) => draft.source === `${candidate.platform}:${candidate.id}`);
  if (appList.length === 0 && paymentList.length === 0 && warehouses.length === 0) {
    return (
      <div className="empty-state stack" data-testid="empty-state" style={{ alignItems: 'center' }}>
        <p>
          No apps or payment accounts yet. Conversions come from your website&apos;s form submissions, your Stripe payments, or rows of
          BigQuery and events of Mixpanel.
        </p>
        <div className="actions" style={{ justifyContent: 'center' }}>
          <Link className="button" href={`${org}/app/connect`}>
            Add an app
          </Link>
          <Link className="button button--secondary" href={`${org}/payment`}>
            Connect Stripe
          </Link>
          <Link className="button button--secondary" href={`${org}/destination`}>
            Connect BigQuery or Mixpanel
          </Link>
        </div>
      </div>
    );
  }
  const pick = (value: string) => {
    const warehouse = warehouses.find((candidate) => value === `${candidate.platform}:${candidate.id}`);
    onPick(value);
    // A warehouse source's draft comes with its fields, which load now.
    if (warehouse)
      void Promise.all([import('@/components/conversions/warehouseDefaults'), import('@/components/conversions/warehouseDraft')]).then(
        ([{ newWarehouseDraft }, helpers]) => {
          rememberWarehouseHelpers(helpers);
          onWarehouseReady(value, newWarehouseDraft(warehouse, plan));
        },
      );
  };
  return (
    <div className="stack">
      <fieldset className={styles.fieldset} aria-describedby={error ? 'source-error' : undefined}>
        <legend className={styles.legend}>Where do the events come from?</legend>
        {appList.length > 0 && (
          <>
            <h3 className={styles.groupTitle}>Apps</h3>
            <ul className={styles.choices}>
              {appList.map((app) => (
                <Choice
                  key={app.id}
                  name="source"
                  value={`app:${app.id}`}
                  checked={draft.source === `app:${app.id}`}
                  onChange={pick}
                  title={app.name}
                  detail={`Form submissions on ${app.websiteUrl}`}
                />
              ))}
            </ul>
          </>
        )}
        {paymentList.length > 0 && (
          <>
            <h3 className={styles.groupTitle}>Payment accounts</h3>
            <ul className={styles.choices}>
              {paymentList.map((payment) => (
                <Choice
                  key={payment.id}
                  name="source"
                  value={`payments:${payment.id}`}
                  checked={draft.source === `payments:${payment.id}`}
                  onChange={pick}
                  title={payment.name}
                  detail={`Successful Stripe payments (${payment.livemode ? 'live' : 'test'} mode)`}
                />
              ))}
            </ul>
          </>
        )}
        {warehouses.length > 0 && (
          <>
            <h3 className={styles.groupTitle}>Warehouse and analytics</h3>
            <ul className={styles.choices}>
              {warehouses.map((warehouse) => (
                <Choice
                  key={warehouse.id}
                  name="source"
                  value={`${warehouse.platform}:${warehouse.id}`}
                  checked={draft.source === `${warehouse.platform}:${warehouse.id}`}
                  onChange={pick}
                  title={warehouse.name}
                  detail={
                    warehouse.platform === 'bigquery'
                      ? 'Rows of a BigQuery table or of your own SELECT, read on a schedule'
                      : `Events of Mixpanel project ${warehouse.settings.projectId ?? ''}, read on a schedule`.replace(' ,', ',')
                  }
                />
              ))}
            </ul>
          </>
        )}
        <FieldError id="source-error" error={error} />
        <p className="muted">
          Another source? <Link href={`${org}/app/connect`}>Add an app</Link>, <Link href={`${org}/payment`}>connect Stripe</Link>, or{' '}
          <Link href={`${org}/destination`}>connect {inWords(WAREHOUSE_PLATFORMS)}</Link> to read from it.
        </p>
      </fieldset>
      {reading && !draft.warehouse && <Spinner label="Loading the fields" />}
      {reading && draft.warehouse && (
        <WarehouseSourceFields
          orgId={orgId}
          plan={plan}
          destination={reading}
          draft={draft.warehouse}
          onChange={onWarehouse}
          errors={errors}
          onErrors={onErrors}
          sendsTo={draft.destinationId || undefined}
        />
      )}
    </div>
  );
}
